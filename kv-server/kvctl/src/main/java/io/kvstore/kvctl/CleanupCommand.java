package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;

/** {@code kvctl cleanup}: the node drops the keys it no longer owns. */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = {"Has the node drop every key it is no longer a replica of (POST /v0/admin/cleanup?async=true), as"
                + " the claimant asks every owner after a change; for a node that was down then. Safe at any time outside"
                + " a change. Meanwhile a progress bar on stderr shows the keys examined out of the node's estimate of"
                + " them (its tables' entries), the keys removed, the size of the tables the rewrite reads and the time"
                + " left (GET /v0/admin/cleanup?id=N).",
            "Exit 1 with the node's reason while a change is in progress or when the node owns no range."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.1:8080 cleanup", "  kvctl cleanup --json | jq .keysRemoved"})
final class CleanupCommand extends FollowedCommand {
    @Override
    public Integer call() {
        return run("cleanup", "/v0/admin/cleanup");
    }

    @Override
    String summarize(JsonObject answer) {
        return "cleanup of " + answer.getString("node") + " at epoch " + answer.getLong("epoch") + " done: "
                + answer.getLong("keysRemoved", 0L) + " keys removed";
    }
}
