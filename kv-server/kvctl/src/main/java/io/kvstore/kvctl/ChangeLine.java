package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;

/**
 * The line saying which membership change a cluster map is in: the claimant's map names the change and
 * its step ({@code metadata.change}); any other node's shows only that some node is joining or leaving.
 */
final class ChangeLine {
    private ChangeLine() {
    }

    /** Prints the line for {@code map} (a {@code GET /v0/cluster} answer), or nothing when no change is under way. */
    static void print(PrintWriter out, JsonObject map) {
        String line = of(map);
        if (line != null) {
            out.println(line);
            out.flush();
        }
    }

    /** The line for {@code map}, or null when no change is under way. */
    static String of(JsonObject map) {
        JsonObject metadata = map.getJsonObject("metadata");
        JsonObject change = metadata == null ? null : metadata.getJsonObject("change");
        if (change != null) {
            return "change in progress: " + change.getString("operation") + " of " + change.getString("node")
                    + " (id " + change.getValue("id") + ", step " + change.getString("step") + ")";
        }
        JsonArray nodes = map.getJsonArray("nodes");
        for (int i = 0; i < nodes.size(); i++) {
            JsonObject node = nodes.getJsonObject(i);
            if (!"normal".equals(node.getString("state"))) {
                return "change in progress: " + node.getString("url") + " is " + node.getString("state")
                        + " (kvctl changes shows its progress)";
            }
        }
        return metadata != null && metadata.getBoolean("changeInProgress", false) ? "change in progress" : null;
    }
}
