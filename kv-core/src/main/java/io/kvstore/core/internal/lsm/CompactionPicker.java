package io.kvstore.core.internal.lsm;

import java.util.Arrays;

/**
 * Size-tiered compaction over contiguous runs of tables (newest first), so a compaction's output can
 * take its inputs' place in the recency order. A run is a stretch of tables of similar size (each
 * within half to twice the run's average); a run of {@code trigger} or more tables is merged. With
 * flushes of size F this builds tiers of F, trigger*F, trigger^2*F ...: each byte is rewritten about
 * once per tier (write amplification ~ log_trigger(data/F)), and the table count stays near
 * (trigger - 1) per tier. If tiers fail to form (sizes too irregular) and tables pile up past
 * {@code 4 * trigger}, the cheapest window of {@code trigger} adjacent tables is merged instead. A level
 * left by leveled compaction counts as one table of its total size (see {@link #pick(Version, int)}).
 */
final class CompactionPicker {
    /**
     * Most sorted runs merged at once, to bound one compaction's duration; a run that is a whole level (left
     * by leveled compaction) may itself be many tables.
     */
    static final int MAX_RUN = 32;

    private CompactionPicker() {
    }

    /**
     * The run the size-tiered policy picks in {@code v}, or null if none is due. Each level 0 table is a
     * sorted run of its own, and so is each deeper level as a whole (left by leveled compaction before the
     * store changed style): a compaction takes a level whole or not at all, so its one output, which takes
     * the oldest input's level, never overlaps a table of that level it did not replace.
     */
    static Compaction pick(Version v, int trigger) {
        int[] runStarts = new int[v.tables.length + 1];
        long[] sizes = new long[v.tables.length];
        int runs = 0;
        for (int start = 0; start < v.tables.length; start = v.runEnd(start)) {
            long size = 0;
            for (int i = start; i < v.runEnd(start); i++) {
                size += v.tables[i].fileSize();
            }
            runStarts[runs] = start;
            sizes[runs++] = size;
        }
        runStarts[runs] = v.tables.length;
        int[] run = pick(Arrays.copyOf(sizes, runs), trigger);
        return run == null ? null : Compaction.of(v, runStarts[run[0]], runStarts[run[1]]);
    }

    /** Returns {start, end} (end exclusive) of the sorted runs to compact in {@code sizes}, or null. */
    static int[] pick(long[] sizes, int trigger) {
        int n = sizes.length;
        for (int start = 0; start < n; start++) {
            long sum = sizes[start];
            int end = start + 1;
            while (end < n && end - start < MAX_RUN) {
                long average = sum / (end - start);
                if (sizes[end] > 2 * average || sizes[end] < average / 2) {
                    break;
                }
                sum += sizes[end];
                end++;
            }
            if (end - start >= trigger) {
                return new int[] {start, end};
            }
        }
        if (n > 4 * trigger) {
            int best = 0;
            long bestSum = Long.MAX_VALUE;
            for (int start = 0; start + trigger <= n; start++) {
                long sum = 0;
                for (int i = start; i < start + trigger; i++) {
                    sum += sizes[i];
                }
                if (sum < bestSum) {
                    bestSum = sum;
                    best = start;
                }
            }
            return new int[] {best, best + trigger};
        }
        return null;
    }
}
