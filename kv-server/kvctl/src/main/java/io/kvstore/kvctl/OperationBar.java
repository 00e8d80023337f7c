package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The text of a repair's or a cleanup's progress, from the entry {@code GET /v0/admin/repair} or
 * {@code cleanup} answers: a bar of the parts done out of those planned (a repair's exchanges, a
 * cleanup's one rewrite), the keys read and acted on so far, the time since it started and an estimate
 * of the time left, from the pace of the parts finished so far, as {@link ProgressBar} draws a change.
 */
final class OperationBar {
    private static final int WIDTH = 30;

    private OperationBar() {
    }

    /**
     * A scrub pass as {@code /v0/status} shows it ({@code damage.scrub}): {@code [######------] 120.0 MiB of
     * 800.0 MiB, 3/12 tables, 0:10 elapsed, ETA 0:56}, the estimate from the bytes checked so far.
     */
    static String scrub(JsonObject pass, Duration elapsed) {
        long bytes = pass.getLong("bytes", 0L);
        long checked = pass.getLong("bytesChecked", 0L);
        int filled = bytes == 0 ? 0 : (int) Math.min(WIDTH, WIDTH * checked / bytes);
        return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] " + Units.bytes(checked) + " of " + Units.bytes(bytes)
                + ", " + pass.getInteger("tablesChecked", 0) + "/" + pass.getInteger("tables", 0) + " tables, "
                + Units.duration(elapsed) + " elapsed, ETA " + ProgressBar.eta(checked, bytes, elapsed);
    }

    /**
     * {@code [###############---------------] 1/2 exchanges, 2000 keys in trees, 1000 copied (1.2 MiB), 0:12 elapsed, ETA 0:12}.
     * A cleanup, one rewrite, fills its bar by the keys examined out of the node's estimate of them
     * ({@code keysTotal}) when it gave one, and so draws its time left from them.
     */
    static String render(JsonObject run, Duration elapsed) {
        boolean repair = "repair".equals(run.getString("operation"));
        long parts = run.getLong("parts", 0L);
        long done = run.getLong("partsDone", 0L);
        Long keysTotal = run.getLong("keysTotal");
        long scanned = run.getLong("keysScanned", 0L);
        boolean byKeys = !repair && keysTotal != null && keysTotal > 0 && done < parts;
        long barDone = byKeys ? Math.min(scanned, keysTotal) : done;
        long barOf = byKeys ? keysTotal : parts;
        int filled = barOf == 0 ? 0 : (int) Math.min(WIDTH, WIDTH * barDone / barOf);
        StringBuilder text = new StringBuilder("[").append("#".repeat(filled)).append("-".repeat(WIDTH - filled))
                .append("] ").append(done).append('/').append(parts).append(repair ? " exchanges, " : " rewrite, ")
                .append(run.getLong("keysScanned", 0L)).append(repair ? " keys in trees, " : " keys examined, ")
                .append(run.getLong("keysDone", 0L)).append(repair ? " copied" : " removed");
        long bytesDone = run.getLong("bytesDone", 0L);
        if (bytesDone > 0) {
            text.append(" (").append(Units.bytes(bytesDone)).append(')');
        }
        Long bytesTotal = run.getLong("bytesTotal");
        if (bytesTotal != null) {
            text.append(", ").append(Units.bytes(bytesTotal)).append(" of tables");
        }
        text.append(", ").append(Units.duration(elapsed)).append(" elapsed");
        if ("running".equals(run.getString("status"))) {
            text.append(", ETA ").append(ProgressBar.eta(barDone, barOf, elapsed));
        }
        return text.toString();
    }
}
