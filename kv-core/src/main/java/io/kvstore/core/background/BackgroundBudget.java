package io.kvstore.core.background;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * One node's bytes per second for background work (compactions, streams, hint replay, repair scans,
 * scrubs), shared by {@link BudgetLane}s: so that background work together, not each kind on its own,
 * leaves the foreground what it needs. Each kind draws through its lane at a share set by its
 * {@link BackgroundWork#weight() weight} among the kinds that have work (an idle lane's share goes to
 * the busy ones), never above its own cap, and never below its weight's part of the floor, so that
 * every kind always progresses.
 *
 * <p>A {@linkplain #fixed() fixed} budget gives every lane its own cap (no cap: no limit), which is what
 * each kind had on its own. An {@linkplain #adaptive adaptive} budget moves between its floor and the
 * sum of the caps as a {@link BudgetController} sets it from what the foreground leaves
 * (docs/TUNING.md, background budget). Thread-safe.
 */
public final class BackgroundBudget {
    /** The ceiling of an adaptive budget whose lanes have no cap of their own. */
    static final long UNCAPPED_CEILING = 1L << 30;

    private final boolean adaptive;
    private final long floorBytesPerSecond;
    private final LongSupplier nanoClock;
    private final LongConsumer sleeper;
    private final Map<BackgroundWork, BudgetLane> lanes = new EnumMap<>(BackgroundWork.class);
    /** The budget; guarded by this, volatile for readers. */
    private volatile long bytesPerSecond;
    private boolean set;

    private BackgroundBudget(boolean adaptive, long floorBytesPerSecond, LongSupplier nanoClock,
                             LongConsumer sleeper) {
        if (adaptive && floorBytesPerSecond <= 0) {
            throw new IllegalArgumentException("the floor of a background budget must be > 0, got " + floorBytesPerSecond);
        }
        this.adaptive = adaptive;
        this.floorBytesPerSecond = floorBytesPerSecond;
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.bytesPerSecond = adaptive ? floorBytesPerSecond : 0;
    }

    /** A budget that gives each lane its own cap: each kind of work at its own rate, as without a budget. */
    public static BackgroundBudget fixed() {
        return new BackgroundBudget(false, 0, System::nanoTime, LockSupport::parkNanos);
    }

    /**
     * A budget that a {@link BudgetController} moves between {@code floorBytesPerSecond} ({@code > 0})
     * and the sum of its lanes' caps; it starts at that sum, and a controller brings it down within a
     * second once the foreground needs the cores.
     */
    public static BackgroundBudget adaptive(long floorBytesPerSecond) {
        return adaptive(floorBytesPerSecond, System::nanoTime, LockSupport::parkNanos);
    }

    /** {@link #adaptive(long)} on {@code nanoClock}, its lanes waiting by {@code sleeper} (tests simulate both). */
    public static BackgroundBudget adaptive(long floorBytesPerSecond, LongSupplier nanoClock,
                                            LongConsumer sleeper) {
        return new BackgroundBudget(true, floorBytesPerSecond, nanoClock, sleeper);
    }

    /** {@link #fixed()} on {@code nanoClock}, its lanes waiting by {@code sleeper}. */
    public static BackgroundBudget fixed(LongSupplier nanoClock, LongConsumer sleeper) {
        return new BackgroundBudget(false, 0, nanoClock, sleeper);
    }

    /**
     * The lane of {@code work}, made at the first call; {@code capBytesPerSecond} ({@code >= 0}, 0: no cap
     * of its own) is its cap from now on.
     */
    public synchronized BudgetLane lane(BackgroundWork work, long capBytesPerSecond) {
        if (capBytesPerSecond < 0) {
            throw new IllegalArgumentException("the cap of " + work.label() + " must be >= 0, got " + capBytesPerSecond);
        }
        BudgetLane lane = lanes.get(work);
        if (lane == null) {
            lane = new BudgetLane(this, work, capBytesPerSecond, nanoClock, sleeper);
            lanes.put(work, lane);
        } else {
            lane.cap(capBytesPerSecond);
        }
        if (!set) {
            bytesPerSecond = ceilingBytesPerSecond();
        }
        reallocate();
        return lane;
    }

    /** The lanes made so far, in {@link BackgroundWork} order. */
    public synchronized List<BudgetLane> lanes() {
        return new ArrayList<>(lanes.values());
    }

    /** Whether a controller moves this budget. */
    public boolean adaptive() {
        return adaptive;
    }

    /** The budget now in bytes per second; that of a fixed budget is the sum of its lanes' caps. */
    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Below this the budget never goes; 0 for a fixed budget. */
    public long floorBytesPerSecond() {
        return floorBytesPerSecond;
    }

    /**
     * Above this the budget never goes: the sum of its lanes' caps ({@link #UNCAPPED_CEILING} if none
     * has one), at least the floor.
     */
    public synchronized long ceilingBytesPerSecond() {
        long sum = 0;
        for (BudgetLane lane : lanes.values()) {
            sum = saturatedAdd(sum, lane.capBytesPerSecond());
        }
        return Math.max(floorBytesPerSecond, sum == 0 ? UNCAPPED_CEILING : sum);
    }

    /** Sets an adaptive budget, held between its floor and ceiling, and the lanes' shares with it. */
    synchronized void setBytesPerSecond(long bytesPerSecond) {
        if (!adaptive) {
            throw new IllegalStateException("a fixed background budget is not set");
        }
        set = true;
        this.bytesPerSecond = Math.max(floorBytesPerSecond, Math.min(ceilingBytesPerSecond(), bytesPerSecond));
        reallocate();
    }

    /** Marks the lanes that drew nothing lately idle, and gives their shares to the busy ones. */
    synchronized void tick() {
        long now = nanoClock.getAsLong();
        boolean changed = false;
        for (BudgetLane lane : lanes.values()) {
            changed |= lane.idleIfQuiet(now);
        }
        if (changed) {
            reallocate();
        }
    }

    /**
     * Sets every lane's share. Fixed: its cap. Adaptive: the budget is split among the busy lanes by
     * weight, a lane whose split exceeds its cap keeps its cap and the rest is split again among the
     * others; an idle lane is given what it would get if it joined them, so that its first draw is
     * not held up, and no lane gets less than its weight's part of the floor (nor more than its cap).
     */
    synchronized void reallocate() {
        if (!adaptive) {
            for (BudgetLane lane : lanes.values()) {
                lane.share(lane.capBytesPerSecond());
            }
            if (!set) {
                bytesPerSecond = ceilingBytesPerSecond();
            }
            return;
        }
        long now = nanoClock.getAsLong();
        List<BudgetLane> open = new ArrayList<>();
        int allWeights = 0;
        int busyWeights = 0;
        for (BudgetLane lane : lanes.values()) {
            allWeights += lane.work().weight();
            if (lane.busy(now)) {
                open.add(lane);
                busyWeights += lane.work().weight();
            }
        }
        Map<BackgroundWork, Long> shares = new EnumMap<>(BackgroundWork.class);
        double remaining = bytesPerSecond;
        boolean capped = true;
        while (capped && !open.isEmpty()) {
            capped = false;
            int weights = 0;
            for (BudgetLane lane : open) {
                weights += lane.work().weight();
            }
            for (int i = 0; i < open.size(); i++) {
                BudgetLane lane = open.get(i);
                double split = remaining * lane.work().weight() / weights;
                if (capOf(lane) <= split) {
                    shares.put(lane.work(), capOf(lane));
                    remaining -= capOf(lane);
                    open.remove(i);
                    capped = true;
                    break;
                }
            }
            if (!capped) {
                for (BudgetLane lane : open) {
                    shares.put(lane.work(), (long) (remaining * lane.work().weight() / weights));
                }
            }
        }
        for (BudgetLane lane : lanes.values()) {
            int weight = lane.work().weight();
            long share = shares.containsKey(lane.work()) ? shares.get(lane.work())
                    : (long) ((double) bytesPerSecond * weight / (busyWeights + weight));
            long least = Math.max(1, (long) ((double) floorBytesPerSecond * weight / allWeights));
            lane.share(Math.min(capOf(lane), Math.max(least, share)));
        }
    }

    private static long capOf(BudgetLane lane) {
        return lane.capBytesPerSecond() == 0 ? Long.MAX_VALUE : lane.capBytesPerSecond();
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    @Override
    public String toString() {
        return (adaptive ? "adaptive" : "fixed") + " background budget of " + bytesPerSecond + " bytes/s";
    }
}
