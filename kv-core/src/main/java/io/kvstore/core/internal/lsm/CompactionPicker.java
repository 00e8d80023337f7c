package io.kvstore.core.internal.lsm;

/**
 * Size-tiered compaction over contiguous runs of tables (newest first), so a compaction's output can
 * take its inputs' place in the recency order. A run is a stretch of tables of similar size (each
 * within half to twice the run's average); a run of {@code trigger} or more tables is merged. With
 * flushes of size F this builds tiers of F, trigger*F, trigger^2*F ...: each byte is rewritten about
 * once per tier (write amplification ~ log_trigger(data/F)), and the table count stays near
 * (trigger - 1) per tier. If tiers fail to form (sizes too irregular) and tables pile up past
 * {@code 4 * trigger}, the cheapest window of {@code trigger} adjacent tables is merged instead.
 */
final class CompactionPicker {
    /** Most tables merged at once, to bound one compaction's duration. */
    static final int MAX_RUN = 32;

    private CompactionPicker() {
    }

    /** The run the size-tiered policy picks in {@code v}, or null if none is due. */
    static Compaction pick(Version v, int trigger) {
        long[] sizes = new long[v.tables.length];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = v.tables[i].fileSize();
        }
        int[] run = pick(sizes, trigger);
        return run == null ? null : Compaction.of(v, run[0], run[1]);
    }

    /** Returns {start, end} (end exclusive) of the run to compact in {@code sizes}, or null. */
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
