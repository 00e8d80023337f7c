package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The text of a change's progress, from its entry in {@code GET /v0/admin/changes}: a bar of the keys the
 * sources have read out of those they have to (or, from a node that does not count them, of the streams
 * done out of the streams asked for), the entries and bytes sent, the step, the time since it started
 * and an estimate of the time left at the pace so far.
 */
final class ProgressBar {
    private static final int WIDTH = 30;

    private ProgressBar() {
    }

    /**
     * {@code [#########---------------------] 1/3 streams, 31.2% of keys read, 4213 entries (4.1 MiB), streaming,
     * 0:12 elapsed, ETA 0:26}.
     */
    static String render(JsonObject change, Duration elapsed) {
        int streams = change.getInteger("streams", 0);
        int done = change.getInteger("streamsDone", 0);
        long toScan = change.getLong("keysToScan", 0L);
        long scanned = Math.min(change.getLong("keysScanned", 0L), Math.max(0, toScan));
        // The keys to read are an estimate: the bar stops at full, and a change whose streams are done is full.
        boolean byKeys = toScan > 0 && !(streams > 0 && done >= streams);
        long barDone = byKeys ? scanned : done;
        long barOf = byKeys ? toScan : streams;
        int filled = barOf == 0 ? 0 : (int) (WIDTH * barDone / barOf);
        StringBuilder text = new StringBuilder("[").append("#".repeat(filled)).append("-".repeat(WIDTH - filled))
                .append("] ").append(done).append('/').append(streams).append(" streams, ");
        if (byKeys) {
            text.append(Units.percent(scanned / (double) toScan)).append(" of keys read, ");
        }
        text.append(change.getLong("entriesStreamed", 0L)).append(" entries");
        if (change.containsKey("bytesStreamed")) {
            text.append(" (").append(Units.bytes(change.getLong("bytesStreamed", 0L))).append(')');
        }
        text.append(", ").append(change.getString("step", "?")).append(", ").append(Units.duration(elapsed)).append(" elapsed");
        if ("running".equals(change.getString("status"))) {
            text.append(", ETA ").append(eta(barDone, barOf, elapsed));
        }
        return text.toString();
    }

    /** The time left at the pace so far, once {@code done} of {@code parts} parts took {@code elapsed}. */
    static String eta(long done, long parts, Duration elapsed) {
        if (done == 0 || parts == 0) {
            return "--";
        }
        if (done >= parts) {
            return "finishing";
        }
        return Units.duration(elapsed.multipliedBy(parts - done).dividedBy(done));
    }

    /**
     * Since the node started what {@code entry} describes ({@code startedAt}), to its {@code finishedAt} or
     * now, by the node's clock; zero if the entry does not say.
     */
    static Duration elapsed(JsonObject entry) {
        try {
            Instant started = Instant.parse(entry.getString("startedAt"));
            String finished = entry.getString("finishedAt");
            return Duration.between(started, finished == null ? Instant.now() : Instant.parse(finished));
        } catch (DateTimeParseException | NullPointerException e) {
            return Duration.ZERO;
        }
    }
}
