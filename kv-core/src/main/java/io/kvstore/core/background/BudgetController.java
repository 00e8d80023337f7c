package io.kvstore.core.background;

import java.util.concurrent.TimeUnit;

/**
 * Sets an adaptive {@link BackgroundBudget} from what the foreground leaves, once a tick
 * ({@link #TICK_NANOS}): additive increase while requests are as fast and as few in flight as usual,
 * multiplicative decrease as soon as either rises, so that background work yields the cores within a
 * second of a burst and takes them back a few seconds after it. "Usual" is a baseline of mean latency
 * and requests in flight learned while the foreground is not pressed; it creeps up under a lasting
 * heavier load, so that the budget comes back in steps to what that load leaves. One thread ticks it;
 * any may read what it learned. The constants are discussed in docs/TUNING.md (background budget).
 */
public final class BudgetController {
    /** How often the caller should {@link #tick()}. */
    public static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Latency or requests in flight this many times the baseline mean the foreground is pressed. */
    static final double RISE = 2.0;
    /** A latency rise smaller than this is noise (a collection, a busy neighbour), not pressure. */
    static final long LATENCY_SLACK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** Requests in flight above the baseline that are still noise rather than a queue. */
    static final int IN_FLIGHT_SLACK = 4;
    /** Below this many times the baseline (and the in-flight slack) the foreground is calm: the budget grows. */
    static final double CALM = 1.25;
    /** Fewer requests than this in a tick say nothing about their latency. */
    static final int MIN_REQUESTS = 4;
    /** What a pressed tick leaves of the budget: a tenth of it within four ticks. */
    static final double BACKOFF = 0.5;
    /** Calm ticks that bring the budget from its floor to its ceiling. */
    static final int STEPS_TO_CEILING = 40;
    /** Weight of a calm tick in the baseline. */
    static final double LEARN = 1.0 / 16;
    /** Weight of a pressed tick in the baseline: small, so that only a lasting load becomes the usual. */
    static final double DRIFT = 1.0 / 100;

    private final BackgroundBudget budget;
    private final ForegroundSignal signal;
    /** Learned mean latency; negative until the first tick with requests. Volatile, as the others, for readers of metrics. */
    private volatile double baselineNanos = -1;
    private volatile double baselineInFlight;
    private volatile long pressedTicks;

    /** A controller of {@code budget} (adaptive) that reads {@code signal}. */
    public BudgetController(BackgroundBudget budget, ForegroundSignal signal) {
        if (!budget.adaptive()) {
            throw new IllegalArgumentException("a fixed background budget has no controller");
        }
        this.budget = budget;
        this.signal = signal;
    }

    /** Reads the foreground's last interval and sets the budget from it; returns the budget now. */
    public long tick() {
        ForegroundSignal.Sample sample = signal.sample();
        boolean measured = sample.requests() >= MIN_REQUESTS;
        double latency = sample.meanLatencyNanos();
        int inFlight = sample.inFlight();
        if (measured && baselineNanos < 0) {
            baselineNanos = latency;
        }
        boolean slow = measured && latency > baselineNanos * RISE && latency - baselineNanos > LATENCY_SLACK_NANOS;
        boolean queued = inFlight > baselineInFlight * RISE + IN_FLIGHT_SLACK;
        long now = budget.bytesPerSecond();
        if (slow || queued) {
            pressedTicks++;
            budget.setBytesPerSecond((long) (now * BACKOFF));
            if (measured) {
                baselineNanos += (latency - baselineNanos) * DRIFT;
            }
            baselineInFlight += (inFlight - baselineInFlight) * DRIFT;
        } else {
            boolean calm = (!measured || latency <= baselineNanos * CALM)
                    && inFlight <= baselineInFlight * CALM + IN_FLIGHT_SLACK / 2.0;
            if (calm) {
                long range = budget.ceilingBytesPerSecond() - budget.floorBytesPerSecond();
                long step = Math.max(1, (range + STEPS_TO_CEILING - 1) / STEPS_TO_CEILING);
                budget.setBytesPerSecond(now > Long.MAX_VALUE - step ? Long.MAX_VALUE : now + step);
            }
            if (measured) {
                baselineNanos += (latency - baselineNanos) * LEARN;
            }
            baselineInFlight += (inFlight - baselineInFlight) * LEARN;
        }
        budget.tick();
        return budget.bytesPerSecond();
    }

    /** The mean latency the controller takes as usual, in nanoseconds; 0 before the first requests. */
    public long baselineLatencyNanos() {
        return Math.max(0, (long) baselineNanos);
    }

    /** The requests in flight the controller takes as usual. */
    public double baselineInFlight() {
        return baselineInFlight;
    }

    /** Ticks that found the foreground pressed and backed the budget off. */
    public long pressedTicks() {
        return pressedTicks;
    }
}
