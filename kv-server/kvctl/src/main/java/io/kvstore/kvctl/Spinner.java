package io.kvstore.kvctl;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The time spent waiting for an operation that answers only once it is done (scrub),
 * shown on a {@link ProgressLine}: redrawn with a turning bar every tenth of a second on a terminal,
 * a line every ten seconds elsewhere. That route reports no progress of its own while it runs.
 */
final class Spinner implements AutoCloseable {
    private static final char[] FRAMES = {'|', '/', '-', '\\'};

    private final ProgressLine line;
    private final String what;
    private final long startNanos = System.nanoTime();
    private final ScheduledExecutorService ticks;
    private int frame;

    Spinner(ProgressLine line, String what, boolean terminal) {
        this.line = line;
        this.what = what;
        this.ticks = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kvctl-spinner");
            thread.setDaemon(true);
            return thread;
        });
        long period = terminal ? 100 : 10_000;
        ticks.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** The time since the spinner started. */
    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private synchronized void tick() {
        line.show(FRAMES[frame++ % FRAMES.length] + " " + what + ", " + Units.duration(elapsed()) + " elapsed");
    }

    @Override
    public synchronized void close() {
        ticks.shutdownNow();
        line.end();
    }
}
