package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The text of a change's progress, from its entry in {@code GET /v0/admin/changes}: a bar of the streams
 * done out of the streams asked for, the entries the finished streams sent, the step, the time since it
 * started and an estimate of the time left, from the pace of the streams finished so far.
 */
final class ProgressBar {
    private static final int WIDTH = 30;

    private ProgressBar() {
    }

    /** {@code [##########--------------------] 1/3 streams, 4213 entries, streaming, 0:12 elapsed, ETA 0:24}. */
    static String render(JsonObject change, Duration elapsed) {
        int streams = change.getInteger("streams", 0);
        int done = change.getInteger("streamsDone", 0);
        int filled = streams == 0 ? 0 : (int) ((long) WIDTH * done / streams);
        StringBuilder text = new StringBuilder("[").append("#".repeat(filled)).append("-".repeat(WIDTH - filled))
                .append("] ").append(done).append('/').append(streams).append(" streams, ")
                .append(change.getLong("entriesStreamed", 0L)).append(" entries, ")
                .append(change.getString("step", "?")).append(", ").append(Units.duration(elapsed)).append(" elapsed");
        if ("running".equals(change.getString("status"))) {
            text.append(", ETA ").append(eta(done, streams, elapsed));
        }
        return text.toString();
    }

    private static String eta(int done, int streams, Duration elapsed) {
        if (done == 0 || streams == 0) {
            return "--";
        }
        if (done >= streams) {
            return "finishing";
        }
        return Units.duration(elapsed.multipliedBy(streams - done).dividedBy(done));
    }
}
