package io.kvstore.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The latency of each window of {@code windowSeconds} measured seconds, one line per window in a text
 * file: {@code end_s requests p50_ms p99_ms p99.9_ms max_ms}, where {@code end_s} counts from the end
 * of the warm-up. A whole-run percentile hides a stall of a few seconds among minutes of calm; the
 * worst window's shows it.
 */
final class IntervalLog implements AutoCloseable {
    static final String HEADER = "# end_s requests p50_ms p99_ms p99.9_ms max_ms";

    private final PrintStream file;
    private final int windowSeconds;
    private final Histogram window = new Histogram(3_600_000_000L, 3);
    private int secondsInWindow;
    private int measuredSeconds;

    IntervalLog(Path path, int windowSeconds) throws IOException {
        this.file = new PrintStream(Files.newOutputStream(path), true, "UTF-8");
        this.windowSeconds = windowSeconds;
        file.println(HEADER);
    }

    /**
     * Adds one measured second's latencies (microseconds). A full window is written when the next second
     * arrives or at {@link #close()}, so that the run's last answers still count in the last window.
     */
    void addSecond(Histogram second) {
        if (secondsInWindow == windowSeconds) {
            writeWindow();
        }
        window.add(second);
        secondsInWindow++;
        measuredSeconds++;
    }

    /** Adds latencies to the current window without ending a second: the answers that came after the run. */
    void addLate(Histogram late) {
        window.add(late);
    }

    /** Writes the last, possibly shorter, window if it holds anything. */
    @Override
    public void close() {
        if (secondsInWindow > 0 || window.getTotalCount() > 0) {
            writeWindow();
        }
        file.close();
    }

    private void writeWindow() {
        file.printf(Locale.ROOT, "%d %d %.3f %.3f %.3f %.3f%n", measuredSeconds, window.getTotalCount(),
                window.getValueAtPercentile(50) / 1000.0, window.getValueAtPercentile(99) / 1000.0,
                window.getValueAtPercentile(99.9) / 1000.0, window.getMaxValue() / 1000.0);
        window.reset();
        secondsInWindow = 0;
    }
}
