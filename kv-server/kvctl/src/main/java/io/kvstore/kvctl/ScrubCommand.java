package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvctl scrub}: the node reads every table of its store and checks its checksums. */
@Command(name = "scrub", mixinStandardHelpOptions = true,
        description = {"Reads every table of the node's store and checks its checksums (POST /v0/admin/scrub); a damaged"
                + " table is quarantined. Meanwhile a progress bar on stderr shows the bytes and tables checked and an"
                + " estimate of the time left, from the pass the node's status shows (GET /v0/status, damage.scrub);"
                + " without it (a status kvctl may not read), the time elapsed.",
            "Exit 1 if the scrub found damaged tables (listed on stderr), or the engine cannot scrub (501)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.1:8080 scrub",
            "  kvctl scrub --bytes-per-s 0       # unthrottled"})
final class ScrubCommand extends WaitedCommand {
    @Option(names = "--bytes-per-s", paramLabel = "N",
            description = "Bytes read per second at most; 0: no limit (default: the node's --repair-scan-bytes-per-s).")
    Long bytesPerSecond;

    @Option(names = "--poll-ms", paramLabel = "MILLIS", defaultValue = "500",
            description = "How often the node's status is read for the progress (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    @Override
    public Integer call() {
        if (bytesPerSecond != null && bytesPerSecond < 0) {
            throw KvctlException.usage("--bytes-per-s must be 0 or more, got " + bytesPerSecond);
        }
        if (pollMillis < 10) {
            throw KvctlException.usage("--poll-ms must be at least 10, got " + pollMillis);
        }
        return run("scrub", "/v0/admin/scrub" + (bytesPerSecond == null ? "" : "?bytes-per-s=" + bytesPerSecond));
    }

    /**
     * Waits for the scrub's answer, drawing the pass under way from the node's status meanwhile: one that
     * started after the pass the status showed before the request (a background pass may be the one
     * shown until then). Until such a pass shows, or if the status cannot be read, the time elapsed.
     */
    @Override
    int run(String what, String target) {
        String node = node();
        NodeHttp http = http();
        Long before = startedAt(pass(http, node));
        long started = System.nanoTime();
        CompletableFuture<Answer> pending = http.sendUntilDone(node, "POST", target);
        ProgressLine line = new ProgressLine(err(), kvctl.terminal());
        try {
            while (!pending.isDone()) {
                Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
                JsonObject pass = pass(http, node);
                if (pass != null && !pass.getBoolean("finished", true) && !Objects.equals(startedAt(pass), before)) {
                    line.show(OperationBar.scrub(pass, elapsed));
                } else {
                    line.show(what + " on " + node + ", " + Units.duration(elapsed) + " elapsed");
                }
                try {
                    pending.get(pollMillis, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException stillRunningOrFailed) {
                    // the loop ends once it is done; await reports a failure
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new KvctlException(Kvctl.REFUSED, "interrupted while waiting for " + node, e);
                }
            }
        } finally {
            line.end();
        }
        return finish(what, node, http.await(node, pending), Duration.ofNanos(System.nanoTime() - started));
    }

    /** The scrub pass {@code node}'s status shows, or null if it shows none or cannot be read. */
    private static JsonObject pass(NodeHttp http, String node) {
        try {
            Answer status = http.send(node, "GET", "/v0/status");
            if (status.status() != 200) {
                return null;
            }
            JsonObject damage = status.json().getJsonObject("damage");
            return damage == null ? null : damage.getJsonObject("scrub");
        } catch (KvctlException | ClassCastException e) {
            return null;
        }
    }

    private static Long startedAt(JsonObject pass) {
        return pass == null ? null : pass.getLong("startedAtMillis");
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
