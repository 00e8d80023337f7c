package io.kvstore.core.internal.lsm;

import io.kvstore.core.AtomicFile;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.util.Crc32c;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The live file set of a store: its tables with their levels and which level 0 tables are
 * {@linkplain Version#inherited inherited}, the oldest log still needed, and the next unused file
 * number. Rewritten whole on every change, as an {@link AtomicFile} ({@value FileNames#MANIFEST_TMP}
 * first), so after a crash the directory holds either the old or the new set.
 */
final class Manifest {
    /** "KVMF" read as a little-endian int. */
    static final int MAGIC = 0x464D564B;
    /**
     * The version written: each table with its level and flags. Version 2 (no flags: every level 0 table
     * inherited) and version 1 (no levels either: every table inherited at level 0) are read too.
     */
    static final int VERSION = 3;
    static final int V2 = 2;
    static final int V1 = 1;
    /** A table's flag: an inherited level 0 table. */
    static final int INHERITED = 1;

    /** Deepest level a manifest may name. */
    static final int MAX_LEVEL = 16;

    final long nextFileNumber;
    /** Logs numbered at least this hold writes not yet in any table. */
    final long logNumber;
    /** Table file numbers, in the version's order (level 0 newest first, then deeper levels in key order). */
    final long[] tables;
    /** The level of each table. */
    final int[] levels;
    /** Whether each table is an inherited level 0 table. */
    final boolean[] inherited;

    Manifest(long nextFileNumber, long logNumber, long[] tables, int[] levels, boolean[] inherited) {
        this.nextFileNumber = nextFileNumber;
        this.logNumber = logNumber;
        this.tables = tables;
        this.levels = levels;
        this.inherited = inherited;
    }

    /**
     * The manifest of {@code v}. Under size-tiered compaction every level 0 table is recorded as inherited,
     * whatever {@code v} says: its tables are the runs of a tiered store, which a later open under leveled
     * compaction moves into levels one at a time, not level 0 tables of a leveled store to merge together.
     */
    static Manifest of(Version v, long nextFileNumber, boolean leveled) {
        boolean[] inherited = new boolean[v.tables.length];
        for (int i = 0; i < inherited.length; i++) {
            inherited[i] = v.levels[i] == 0 && (v.inherited[i] || !leveled);
        }
        return new Manifest(nextFileNumber, v.oldestLogNumber(), v.tableNumbers(), v.levels, inherited);
    }

    static Manifest empty() {
        return new Manifest(1, 0, new long[0], new int[0], new boolean[0]);
    }

    /** Reads the manifest of {@code dir}, or returns {@code null} if the store is new. */
    static Manifest read(Storage storage, Path dir) throws IOException {
        Path file = dir.resolve(FileNames.MANIFEST);
        byte[] bytes = new AtomicFile(storage, file).read();
        if (bytes == null) {
            return null;
        }
        if (bytes.length < 32 || Coding.getInt(bytes, 0) != MAGIC) {
            throw new CorruptionException(file, 0, "not a manifest (bad magic or too short)");
        }
        int crcAt = bytes.length - 4;
        if (Coding.getInt(bytes, crcAt) != Crc32c.of(bytes, 0, crcAt)) {
            throw new CorruptionException(file, crcAt, "manifest checksum mismatch");
        }
        int version = Coding.getInt(bytes, 4);
        if (version != VERSION && version != V2 && version != V1) {
            throw new CorruptionException(file, 4, "unsupported manifest version " + version);
        }
        long next = Coding.getLong(bytes, 8);
        long log = Coding.getLong(bytes, 16);
        int count = Coding.getInt(bytes, 24);
        int perTable = version == V1 ? 8 : version == V2 ? 12 : 16;
        if (count < 0 || 28L + (long) perTable * count + 4 != bytes.length) {
            throw new CorruptionException(file, 24, "table count " + count + " does not match the file size");
        }
        long[] tables = new long[count];
        int[] levels = new int[count];
        boolean[] inherited = new boolean[count];
        for (int i = 0; i < count; i++) {
            int at = 28 + perTable * i;
            tables[i] = Coding.getLong(bytes, at);
            if (version != V1) {
                levels[i] = Coding.getInt(bytes, at + 8);
                if (levels[i] < 0 || levels[i] > MAX_LEVEL) {
                    throw new CorruptionException(file, at + 8, "table level " + levels[i]);
                }
            }
            if (version == VERSION) {
                int flags = Coding.getInt(bytes, at + 12);
                if ((flags & ~INHERITED) != 0 || (flags == INHERITED && levels[i] != 0)) {
                    throw new CorruptionException(file, at + 12, "table flags " + flags + " at level " + levels[i]);
                }
                inherited[i] = flags == INHERITED;
            } else {
                inherited[i] = levels[i] == 0;
            }
        }
        return new Manifest(next, log, tables, levels, inherited);
    }

    /**
     * Whether the manifest on disk in {@code dir} lists table {@code number}: after a failed
     * {@link #write}, whether the new set was installed anyway. True when it cannot be read (keep the file).
     */
    static boolean lists(Storage storage, Path dir, long number) {
        try {
            Manifest onDisk = read(storage, dir);
            return onDisk == null || Arrays.stream(onDisk.tables).anyMatch(table -> table == number);
        } catch (IOException e) {
            return true;
        }
    }

    /** Atomically replaces the manifest of {@code dir} with this one. */
    void write(Storage storage, Path dir) throws IOException {
        byte[] bytes = new byte[28 + 16 * tables.length + 4];
        Coding.putInt(bytes, 0, MAGIC);
        Coding.putInt(bytes, 4, VERSION);
        Coding.putLong(bytes, 8, nextFileNumber);
        Coding.putLong(bytes, 16, logNumber);
        Coding.putInt(bytes, 24, tables.length);
        for (int i = 0; i < tables.length; i++) {
            Coding.putLong(bytes, 28 + 16 * i, tables[i]);
            Coding.putInt(bytes, 28 + 16 * i + 8, levels[i]);
            Coding.putInt(bytes, 28 + 16 * i + 12, inherited[i] ? INHERITED : 0);
        }
        Coding.putInt(bytes, bytes.length - 4, Crc32c.of(bytes, 0, bytes.length - 4));
        new AtomicFile(storage, dir.resolve(FileNames.MANIFEST)).replace(bytes);
    }
}
