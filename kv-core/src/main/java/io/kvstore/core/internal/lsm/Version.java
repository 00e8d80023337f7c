package io.kvstore.core.internal.lsm;

import io.kvstore.core.internal.table.SsTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable view of what holds the store's data: the active memtable, frozen memtables waiting
 * to be flushed (newest first), and the live tables (newest first). Readers take the current
 * version without a lock; a change publishes a new version.
 */
final class Version {
    final Memtable active;
    final Memtable[] frozen;
    final SsTable[] tables;
    /**
     * The level of each table, parallel to {@link #tables}: 0 for flushed tables (and every table size-tiered
     * compaction writes, unless it replaces a whole deeper level and takes its place), 1 and deeper for the
     * sorted runs of leveled compaction. The tables list level 0 newest first, then each deeper level in
     * key order.
     */
    final int[] levels;
    /**
     * Whether each table, parallel to {@link #tables}, is an <em>inherited</em> level 0 table: one written
     * under size-tiered compaction, or found at level 0 in a manifest that does not say (version 2 or 1).
     * Leveled compaction moves them into levels one at a time, and writers are not held back for them
     * (see {@link WriteController}); tables flushed under leveled compaction are never inherited, also
     * after the store reopens ({@link Manifest#of}).
     */
    final boolean[] inherited;
    /** How many of {@link #tables} are at level 0. */
    final int levelZeroTables;
    /** How many of {@link #tables} are at level 0 and not inherited: flushed under leveled compaction. */
    final int flushedLevelZeroTables;
    /**
     * Parallel to {@link #tables}: the end (exclusive) of the run of same-level tables in key order that
     * starts at each index, {@code i + 1} for a level 0 table: a point read looks up one table per run, a range
     * read merges one source per run.
     */
    private final int[] runEnds;

    Version(Memtable active, Memtable[] frozen, SsTable[] tables) {
        this(active, frozen, tables, new int[tables.length], new boolean[tables.length]);
    }

    Version(Memtable active, Memtable[] frozen, SsTable[] tables, int[] levels, boolean[] inherited) {
        if (levels.length != tables.length || inherited.length != tables.length) {
            throw new IllegalArgumentException(levels.length + " levels and " + inherited.length
                    + " inherited flags for " + tables.length + " tables");
        }
        this.active = active;
        this.frozen = frozen;
        this.tables = tables;
        this.levels = levels;
        this.inherited = inherited;
        int zero = 0;
        int flushed = 0;
        for (int i = 0; i < levels.length; i++) {
            if (levels[i] == 0) {
                zero++;
                if (!inherited[i]) {
                    flushed++;
                }
            } else if (inherited[i]) {
                throw new IllegalArgumentException("an inherited table at level " + levels[i]);
            }
        }
        this.levelZeroTables = zero;
        this.flushedLevelZeroTables = flushed;
        for (int i = 1; i < tables.length; i++) {
            // Reads open or look up one table of a level at a time: a level out of order would hide keys.
            if (levels[i] == levels[i - 1] && levels[i] > 0 && !tables[i - 1].precedes(tables[i])) {
                throw new IllegalArgumentException("level " + levels[i] + " tables " + tables[i - 1].fileNumber() + " and "
                        + tables[i].fileNumber() + " overlap or are out of key order");
            }
        }
        this.runEnds = new int[tables.length];
        for (int i = tables.length - 1; i >= 0; i--) {
            boolean continued = i + 1 < tables.length && levels[i] > 0 && levels[i + 1] == levels[i];
            runEnds[i] = continued ? runEnds[i + 1] : i + 1;
        }
    }

    /**
     * The end (exclusive) of the run of tables starting at {@code start}: the tables of one level in key
     * order, of which at most one can hold a given key, or just {@code start}'s own table at level 0.
     */
    int runEnd(int start) {
        return runEnds[start];
    }

    /**
     * The index of the one table in the run {@code [start, runEnd(start))} whose key range spans
     * {@code key}, or -1: a binary search over the run's last keys, so a point read costs a comparison
     * per halving rather than one per table of the level.
     */
    int tableSpanning(int start, byte[] key) {
        int end = runEnds[start];
        int at = firstNotEndingBefore(tables, start, end, key);
        return at < end && tables[at].spans(key) ? at : -1;
    }

    /**
     * The first of {@code tables[start, end)}, one level's tables in key order, whose last key is at or
     * above {@code key} (the only one that may hold it), or {@code end} if none: a binary search.
     */
    static int firstNotEndingBefore(SsTable[] tables, int start, int end, byte[] key) {
        int low = start;
        int high = end;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (tables[mid].endsBefore(key)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** How many of {@link #tables} are inherited (see {@link #inherited}). */
    int inheritedTables() {
        return levelZeroTables - flushedLevelZeroTables;
    }

    /** The active memtable frozen, {@code fresh} taking its place. */
    Version withNewActive(Memtable fresh) {
        Memtable[] f = new Memtable[frozen.length + 1];
        f[0] = active;
        System.arraycopy(frozen, 0, f, 1, frozen.length);
        return new Version(fresh, f, tables, levels, inherited);
    }

    /** The oldest frozen memtable replaced by {@code table} (null if the memtable was empty) as newest table. */
    Version withFlushed(Memtable flushed, SsTable table) {
        if (frozen.length == 0 || frozen[frozen.length - 1] != flushed) {
            throw new IllegalStateException("flushed memtable is not the oldest frozen one");
        }
        Memtable[] f = Arrays.copyOf(frozen, frozen.length - 1);
        if (table == null) {
            return new Version(active, f, tables, levels, inherited);
        }
        SsTable[] t = new SsTable[tables.length + 1];
        int[] l = new int[levels.length + 1];
        boolean[] h = new boolean[inherited.length + 1];
        t[0] = table;
        System.arraycopy(tables, 0, t, 1, tables.length);
        System.arraycopy(levels, 0, l, 1, levels.length);
        System.arraycopy(inherited, 0, h, 1, inherited.length);
        return new Version(active, f, t, l, h);
    }

    /**
     * {@code inputs} (a contiguous run of this version's tables) replaced by {@code output} (may be null),
     * which takes the level, and the inherited flag, of the oldest input.
     */
    Version withCompacted(SsTable[] inputs, SsTable output) {
        int start = -1;
        for (int i = 0; i < tables.length; i++) {
            if (tables[i] == inputs[0]) {
                start = i;
                break;
            }
        }
        if (start < 0 || start + inputs.length > tables.length) {
            throw new IllegalStateException("compaction inputs are no longer live");
        }
        for (int i = 0; i < inputs.length; i++) {
            if (tables[start + i] != inputs[i]) {
                throw new IllegalStateException("compaction inputs are no longer a contiguous run");
            }
        }
        int outputs = output == null ? 0 : 1;
        SsTable[] t = new SsTable[tables.length - inputs.length + outputs];
        int[] l = new int[t.length];
        boolean[] h = new boolean[t.length];
        System.arraycopy(tables, 0, t, 0, start);
        System.arraycopy(levels, 0, l, 0, start);
        System.arraycopy(inherited, 0, h, 0, start);
        if (output != null) {
            t[start] = output;
            l[start] = levels[start + inputs.length - 1];
            h[start] = inherited[start + inputs.length - 1];
        }
        int after = tables.length - start - inputs.length;
        System.arraycopy(tables, start + inputs.length, t, start + outputs, after);
        System.arraycopy(levels, start + inputs.length, l, start + outputs, after);
        System.arraycopy(inherited, start + inputs.length, h, start + outputs, after);
        return new Version(active, frozen, t, l, h);
    }

    /**
     * {@code inputs} (live tables of any levels) replaced by {@code outputs} at {@code level}: level 0 keeps
     * its order (outputs at level 0 become its oldest tables), and each deeper level is listed in key order.
     */
    Version withLeveled(SsTable[] inputs, SsTable[] outputs, int level) {
        return withPlaced(inputs, outputs, level, false);
    }

    private Version withPlaced(SsTable[] inputs, SsTable[] outputs, int level, boolean inheritedOutputs) {
        List<SsTable> keptTables = new ArrayList<>();
        List<Integer> keptLevels = new ArrayList<>();
        List<Boolean> keptInherited = new ArrayList<>();
        int removed = 0;
        for (int i = 0; i < tables.length; i++) {
            boolean input = false;
            for (SsTable in : inputs) {
                if (in == tables[i]) {
                    input = true;
                    break;
                }
            }
            if (input) {
                removed++;
            } else {
                keptTables.add(tables[i]);
                keptLevels.add(levels[i]);
                keptInherited.add(inherited[i]);
            }
        }
        if (removed != inputs.length) {
            throw new IllegalStateException("compaction inputs are no longer live");
        }
        for (SsTable out : outputs) {
            keptTables.add(out);
            keptLevels.add(level);
            keptInherited.add(inheritedOutputs);
        }
        Integer[] order = new Integer[keptTables.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        // Level 0 first in its own (recency) order, then deeper levels in key order.
        Arrays.sort(order, (a, b) -> {
            int la = keptLevels.get(a);
            int lb = keptLevels.get(b);
            if (la != lb) {
                return Integer.compare(la, lb);
            }
            if (la == 0) {
                return Integer.compare(a, b);
            }
            return Arrays.compareUnsigned(keptTables.get(a).firstKey(), keptTables.get(b).firstKey());
        });
        SsTable[] t = new SsTable[order.length];
        int[] l = new int[order.length];
        boolean[] h = new boolean[order.length];
        for (int i = 0; i < order.length; i++) {
            t[i] = keptTables.get(order[i]);
            l[i] = keptLevels.get(order[i]);
            h[i] = keptInherited.get(order[i]);
        }
        return new Version(active, frozen, t, l, h);
    }

    /**
     * {@code ingested} (new tables in key order, not overlapping one another) added at {@code level}: at 1
     * or deeper in key order, which the caller has checked they fit; at 0 as its oldest tables, inherited,
     * so that writers are not held back for tables they did not flush.
     */
    Version withIngested(SsTable[] ingested, int level) {
        return withPlaced(new SsTable[0], ingested, level, level == 0);
    }

    /** Whether a table at {@code level} (1 or deeper) has a key range meeting {@code [first, last]}. */
    boolean levelMeets(int level, byte[] first, byte[] last) {
        return levelMeets(level, first, last, new SsTable[0]);
    }

    /** {@link #levelMeets(int, byte[], byte[])} for the tables other than {@code except}. */
    boolean levelMeets(int level, byte[] first, byte[] last, SsTable[] except) {
        for (int i = 0; i < tables.length; i++) {
            if (levels[i] == level && Arrays.compareUnsigned(tables[i].firstKey(), last) <= 0
                    && Arrays.compareUnsigned(tables[i].lastKey(), first) >= 0 && !isOneOf(tables[i], except)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOneOf(SsTable table, SsTable[] tables) {
        for (SsTable t : tables) {
            if (t == table) {
                return true;
            }
        }
        return false;
    }

    /** The deepest level holding a table, 0 if none. */
    int deepestLevel() {
        int deepest = 0;
        for (int level : levels) {
            deepest = Math.max(deepest, level);
        }
        return deepest;
    }

    /** The oldest log still needed: that of the oldest unflushed memtable. */
    long oldestLogNumber() {
        return frozen.length == 0 ? active.logNumber() : frozen[frozen.length - 1].logNumber();
    }

    long[] tableNumbers() {
        long[] numbers = new long[tables.length];
        for (int i = 0; i < tables.length; i++) {
            numbers[i] = tables[i].fileNumber();
        }
        return numbers;
    }
}
