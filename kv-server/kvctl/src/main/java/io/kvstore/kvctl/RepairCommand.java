package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;

/** {@code kvctl repair}: an anti-entropy exchange of the node with every peer. */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = {"Runs an anti-entropy exchange of the node with every peer (POST /v0/admin/repair?async=true) and"
                + " prints what it sent and received once all of them ended. Meanwhile a progress bar on stderr shows"
                + " the exchanges done, the keys in their trees, the keys copied and an estimate of the time left"
                + " (GET /v0/admin/repair?id=N).",
            "Exit 1 with the peers it could not repair with and why."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.2:8080 repair", "  kvctl repair --json | jq .keysReceived",
            "  kvctl repair --poll-ms 2000 2>repair.log"})
final class RepairCommand extends FollowedCommand {
    @Override
    public Integer call() {
        return run("repair", "/v0/admin/repair");
    }

    @Override
    String summarize(JsonObject answer) {
        int peers = answer.getJsonArray("peers").size();
        return "repair of " + answer.getString("node") + " with " + peers + (peers == 1 ? " peer" : " peers") + " done: "
                + answer.getLong("keysSent", 0L) + " keys sent, " + answer.getLong("keysReceived", 0L) + " received, "
                + Units.bytes(answer.getLong("wireBytes", 0L)) + " on the wire";
    }
}
