package io.kvstore.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The collections this JVM's garbage collectors have run so far and the time they took, summed over the
 * collectors ({@link GarbageCollectorMXBean}): under G1 the young and mixed collections and full ones,
 * whose times are pauses, so a phase's difference says how long the collector stopped its threads.
 *
 * @param collections collections so far
 * @param millis      their accumulated time
 */
record GcActivity(long collections, long millis) {

    static GcActivity now() {
        long collections = 0;
        long millis = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            collections += Math.max(0, collector.getCollectionCount());
            millis += Math.max(0, collector.getCollectionTime());
        }
        return new GcActivity(collections, millis);
    }

    /** What happened between {@code earlier} and this snapshot. */
    GcActivity since(GcActivity earlier) {
        return new GcActivity(collections - earlier.collections, millis - earlier.millis);
    }
}
