package io.kvstore.core.lsm;

import io.kvstore.core.table.SsTable;
import java.util.List;

/**
 * Size-tiered compaction: a table's tier is log4 of its size in units of the flush threshold, so
 * fresh flushes are tier 0 and each merge of {@code trigger} tables of a tier makes one table a tier
 * up. Merging only neighbours (in age order) of one tier keeps the write amplification near
 * log4(data / flush size) per byte, at the cost of up to {@code trigger - 1} tables per tier to read
 * (the space amplification of tiering; see docs/FORMAT.md and docs/BENCHMARKS.md for measurements).
 */
final class TieredCompactionPolicy {
    private final long flushThresholdBytes;
    private final int trigger;

    TieredCompactionPolicy(long flushThresholdBytes, int trigger) {
        this.flushThresholdBytes = flushThresholdBytes;
        this.trigger = trigger;
    }

    /**
     * The run {@code [start, end)} of tables (newest first) to merge now, or {@code null}. The first run
     * of at least {@code trigger} neighbours in one tier wins, newest first, so small tables merge first.
     */
    int[] pick(List<SsTable> tables) {
        int runStart = 0;
        for (int i = 1; i <= tables.size(); i++) {
            if (i == tables.size() || tier(tables.get(i)) != tier(tables.get(runStart))) {
                if (i - runStart >= trigger) {
                    return new int[] {runStart, i};
                }
                runStart = i;
            }
        }
        return null;
    }

    int tier(SsTable table) {
        long units = Math.max(1, table.sizeBytes() / Math.max(1, flushThresholdBytes / 2));
        return (63 - Long.numberOfLeadingZeros(units)) / 2;
    }
}
