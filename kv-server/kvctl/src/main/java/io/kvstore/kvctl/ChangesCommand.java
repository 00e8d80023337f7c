package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kvctl changes}: the membership changes the claimant drove since it started, newest first. */
@Command(name = "changes", mixinStandardHelpOptions = true,
        description = "Lists the membership changes the claimant drove since it started (GET /v0/admin/changes, asked of"
                + " any node), newest first, with their step and progress.",
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl changes", "  kvctl changes --json | jq '.changes[0].status'",
            "  kvctl changes --follow 1796621201311      # after decommission --no-wait"})
final class ChangesCommand extends KvctlCommand {
    @Option(names = "--json", description = "Print the list as the node answered it.")
    boolean json;

    @Option(names = "--follow", paramLabel = "ID",
            description = "Follow change ID to its end with a progress bar, as decommission and remove do (exit 1 if it"
                    + " fails or is cancelled).")
    Long follow;

    @Mixin
    FollowOptions following;

    @Override
    public Integer call() {
        if (follow != null) {
            return following.follow(http(), follow, List.of(node()), out(), err(), kvctl.terminal());
        }
        Answer answer = http().send(node(), "GET", "/v0/admin/changes").expect(200);
        if (json) {
            printRaw(answer.body());
            return Kvctl.OK;
        }
        JsonObject list = answer.json();
        JsonArray changes = list.getJsonArray("changes", new JsonArray());
        out().println("claimant " + list.getString("claimant") + ", " + changes.size() + " change"
                + (changes.size() == 1 ? "" : "s"));
        Table table = new Table("ID", "OPERATION", "NODE", "STATUS", "STEP", "STREAMS", "ENTRIES", "STARTED", "REASON");
        for (int i = 0; i < changes.size(); i++) {
            JsonObject change = changes.getJsonObject(i);
            table.row(change.getValue("id"), change.getString("operation") + (change.getBoolean("force", false) ? " (forced)" : ""),
                    change.getString("node"), change.getString("status"), change.getString("step"),
                    change.getInteger("streamsDone", 0) + "/" + change.getInteger("streams", 0),
                    change.getLong("entriesStreamed", 0L), change.getString("startedAt", "-"),
                    change.getString("reason") == null ? "" : change.getString("reason"));
        }
        table.print(out());
        return Kvctl.OK;
    }
}
