package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Following a membership change to its end ({@code decommission}, {@code remove}, {@code changes --follow}):
 * the poll interval, and what the end means: exit 0 and a summary on stdout once the change is
 * {@code done}, exit 1 with the reason once it {@code failed} or was {@code cancelled}.
 */
final class FollowOptions {
    @Option(names = "--poll-ms", paramLabel = "MILLIS", defaultValue = "500",
            description = "How often the change list is read while following (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    /** Follows change {@code id}, asking {@code nodes} in turn, with its progress on {@code err}; prints its outcome on {@code out}. */
    int follow(NodeHttp http, long id, List<String> nodes, PrintWriter out, PrintWriter err, boolean terminal) {
        if (pollMillis < 10) {
            throw KvctlException.usage("--poll-ms must be at least 10, got " + pollMillis);
        }
        JsonObject change = new ChangeFollower(http, new ProgressLine(err, terminal), Duration.ofMillis(pollMillis))
                .follow(id, nodes);
        String what = change.getString("operation") + " of " + change.getString("node") + " (change " + id + ")";
        if (!"done".equals(change.getString("status"))) {
            throw KvctlException.refused(what + " " + change.getString("status") + ": "
                    + change.getString("reason", "no reason given"));
        }
        out.println(what + " done: " + change.getInteger("streamsDone", 0) + " streams sent "
                + change.getLong("entriesStreamed", 0L) + " entries (" + Units.bytes(change.getLong("bytesStreamed", -1L))
                + "); epoch " + change.getLong("epoch", 0L));
        out.flush();
        return Kvctl.OK;
    }
}
