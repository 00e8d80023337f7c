package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvctl scrub}: the node reads every table of its store and checks its checksums. */
@Command(name = "scrub", mixinStandardHelpOptions = true,
        description = {"Reads every table of the node's store and checks its checksums (POST /v0/admin/scrub); a damaged"
                + " table is quarantined. The node reports no progress meanwhile: kvctl shows the time elapsed.",
            "Exit 1 if the scrub found damaged tables (listed on stderr), or the engine cannot scrub (501)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.1:8080 scrub",
            "  kvctl scrub --bytes-per-s 0       # unthrottled"})
final class ScrubCommand extends WaitedCommand {
    @Option(names = "--bytes-per-s", paramLabel = "N",
            description = "Bytes read per second at most; 0: no limit (default: the node's --repair-scan-bytes-per-s).")
    Long bytesPerSecond;

    @Override
    public Integer call() {
        if (bytesPerSecond != null && bytesPerSecond < 0) {
            throw KvctlException.usage("--bytes-per-s must be 0 or more, got " + bytesPerSecond);
        }
        return run("scrub", "/v0/admin/scrub" + (bytesPerSecond == null ? "" : "?bytes-per-s=" + bytesPerSecond));
    }

    @Override
    String summarize(JsonObject answer) {
        return "scrub " + (answer.getBoolean("finished", false) ? "done" : "stopped before its end") + ": "
                + answer.getInteger("tablesChecked", 0) + " of " + answer.getInteger("tables", 0) + " tables checked, "
                + Units.bytes(answer.getLong("bytesChecked", 0L)) + ", "
                + answer.getJsonArray("quarantined", new JsonArray()).size() + " quarantined";
    }

    @Override
    int outcome(JsonObject answer) {
        JsonArray quarantined = answer.getJsonArray("quarantined", new JsonArray());
        for (int i = 0; i < quarantined.size(); i++) {
            JsonObject table = quarantined.getJsonObject(i);
            err().println("damaged: " + table.getString("interval") + " in " + table.getString("file") + ": "
                    + table.getString("reason"));
        }
        err().flush();
        return quarantined.isEmpty() ? Kvctl.OK : Kvctl.REFUSED;
    }
}
