package io.kvstore.core.lsm;

import io.kvstore.core.table.SsTable;

import java.util.Arrays;

/**
 * An immutable view of what holds the store's data: the active memtable, frozen memtables waiting
 * to be flushed (newest first), and the live tables (newest first). Readers take the current
 * version without a lock; a change publishes a new version.
 */
final class Version {
    final Memtable active;
    final Memtable[] frozen;
    final SsTable[] tables;

    Version(Memtable active, Memtable[] frozen, SsTable[] tables) {
        this.active = active;
        this.frozen = frozen;
        this.tables = tables;
    }

    /** The active memtable frozen, {@code fresh} taking its place. */
    Version withNewActive(Memtable fresh) {
        Memtable[] f = new Memtable[frozen.length + 1];
        f[0] = active;
        System.arraycopy(frozen, 0, f, 1, frozen.length);
        return new Version(fresh, f, tables);
    }

    /** The oldest frozen memtable replaced by {@code table} (null if the memtable was empty) as newest table. */
    Version withFlushed(Memtable flushed, SsTable table) {
        if (frozen.length == 0 || frozen[frozen.length - 1] != flushed) {
            throw new IllegalStateException("flushed memtable is not the oldest frozen one");
        }
        Memtable[] f = Arrays.copyOf(frozen, frozen.length - 1);
        SsTable[] t;
        if (table == null) {
            t = tables;
        } else {
            t = new SsTable[tables.length + 1];
            t[0] = table;
            System.arraycopy(tables, 0, t, 1, tables.length);
        }
        return new Version(active, f, t);
    }

    /** {@code inputs} (a contiguous run of this version's tables) replaced by {@code output} (may be null). */
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
        System.arraycopy(tables, 0, t, 0, start);
        if (output != null) {
            t[start] = output;
        }
        System.arraycopy(tables, start + inputs.length, t, start + outputs, tables.length - start - inputs.length);
        return new Version(active, frozen, t);
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
