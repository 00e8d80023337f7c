package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * A command that starts a membership change with {@code async=true} ({@code 202 {"id", "claimant"}}) and
 * follows it to its end with a progress bar, unless told not to wait: exit 0 once it is {@code done},
 * 1 with the reason once it {@code failed} or was {@code cancelled}.
 */
abstract class ChangeCommand extends KvctlCommand {
    @Option(names = "--no-wait", description = "Print the change's id once it started, and do not follow it.")
    boolean noWait;

    @Option(names = "--poll-ms", paramLabel = "MILLIS", defaultValue = "500",
            description = "How often the change list is read while following (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    /** Sends {@code method target} to {@code node} and follows the change it starts. */
    int startAndFollow(String node, String method, String target) {
        if (pollMillis < 10) {
            throw KvctlException.usage("--poll-ms must be at least 10, got " + pollMillis);
        }
        NodeHttp http = http();
        JsonObject started = http.send(node, method, target).expect(202).json();
        long id = started.getLong("id");
        String claimant = started.getString("claimant", node);
        if (noWait) {
            out().println(id);
            out().flush();
            return Kvctl.OK;
        }
        err().println("change " + id + " started by the claimant " + claimant + "; following it (kvctl cancel " + id
                + " stops it)");
        err().flush();
        ProgressLine progress = new ProgressLine(err(), kvctl.terminal());
        JsonObject change = new ChangeFollower(http, progress, Duration.ofMillis(pollMillis))
                .follow(id, claimant.equals(node) ? List.of(node) : List.of(claimant, node));
        String what = change.getString("operation") + " of " + change.getString("node") + " (change " + id + ")";
        if (!"done".equals(change.getString("status"))) {
            throw KvctlException.refused(what + " " + change.getString("status") + ": " + change.getString("reason", "no reason given"));
        }
        out().println(what + " done: " + change.getInteger("streamsDone", 0) + " streams sent "
                + change.getLong("entriesStreamed", 0L) + " entries; epoch " + change.getLong("epoch", 0L));
        out().flush();
        return Kvctl.OK;
    }
}
