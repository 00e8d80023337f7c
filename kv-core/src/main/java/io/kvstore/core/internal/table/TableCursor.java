package io.kvstore.core.internal.table;

import io.kvstore.core.Entry;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads a whole table in key order one entry at a time, in place, for a compaction: no entry becomes
 * objects, compressed blocks are decompressed into one buffer reused from block to block, and no block
 * is added to the block cache. {@link SsTableWriter#add(TableCursor)} copies the current entry's bytes
 * as they are. Before the first {@link #advance()} and after the last, the cursor is on no entry.
 */
public final class TableCursor {
    private final SsTable table;
    private final int blockCount;
    private final BlockCursor cursor = new BlockCursor();
    private int block = -1;
    private int index;
    /** Position of the current entry in {@code cursor.buf}; -1 when on none. */
    private int entry = -1;
    private int keyLength;
    /** The stored value length: {@link TableFormat#TOMBSTONE_LENGTH}, or bytes, flagged {@link TableFormat#EXPIRES}. */
    private int valueField;
    /** Bytes every key of the merge begins with, the same in every cursor of it: comparisons skip them. */
    private final int shared;
    /** {@link Block#keyPrefix} of the current key after its {@link #shared} bytes, which settles most comparisons. */
    private long prefix;

    TableCursor(SsTable table, int shared) {
        this.table = table;
        this.blockCount = table.index().count();
        this.shared = shared;
    }

    /** Moves to the next entry; false, on no entry, once the table has no more. */
    public boolean advance() throws IOException {
        while (block < blockCount) {
            if (block >= 0 && index < cursor.count) {
                entry = Block.entryPosition(cursor.buf, cursor.base, cursor.size, cursor.count, index++);
                keyLength = Block.keyLength(cursor.buf, entry);
                valueField = Block.valueLength(cursor.buf, entry);
                prefix = Block.keyPrefix(cursor.buf, Block.keyPosition(entry) + shared, keyLength - shared);
                return true;
            }
            if (++block < blockCount) {
                try {
                    table.load(block, cursor, false);
                } catch (InternalError e) {
                    throw table.readFault(e);
                }
                index = 0;
            }
        }
        entry = -1;
        return false;
    }

    /** Compares the current keys of this cursor and {@code other}, made with the same shared length, as unsigned bytes. */
    public int compareKey(TableCursor other) {
        if (prefix != other.prefix) {
            return Long.compare(prefix, other.prefix);
        }
        return Block.compareBytes(cursor.buf, Block.keyPosition(entry) + shared, keyLength - shared,
                other.cursor.buf, Block.keyPosition(other.entry) + shared, other.keyLength - shared);
    }

    /**
     * Compares the current entries of this cursor and {@code other}, versions of one key, as
     * {@link Entry#compareVersions} does: positive if this one wins.
     */
    public int compareVersion(TableCursor other) {
        int byHeads = Entry.compareVersionHeads(timestamp(), isTombstone(), expiresAtMillis(),
                other.timestamp(), other.isTombstone(), other.expiresAtMillis());
        if (byHeads != 0 || isTombstone()) {
            return byHeads;
        }
        return Block.compareBytes(cursor.buf, valuePosition(), valueLength(),
                other.cursor.buf, other.valuePosition(), other.valueLength());
    }

    public long timestamp() {
        return Block.timestamp(cursor.buf, entry);
    }

    public boolean isTombstone() {
        return valueField == TableFormat.TOMBSTONE_LENGTH;
    }

    /** When the current value expires, in milliseconds since the epoch; {@link Entry#NEVER} if it does not. */
    public long expiresAtMillis() {
        return hasExpiry() ? cursor.buf.getLong(Block.keyPosition(entry) + keyLength) : Entry.NEVER;
    }

    /** A copy of the current key. */
    public byte[] key() {
        byte[] key = new byte[keyLength];
        cursor.buf.get(Block.keyPosition(entry), key);
        return key;
    }

    /** A copy of the current entry. */
    public Entry entry() {
        return Block.decode(cursor.buf, entry);
    }

    /** The buffer holding the current entry, valid until the next {@link #advance()}. */
    ByteBuffer buffer() {
        return cursor.buf;
    }

    /** Position of the current entry in {@link #buffer()}. */
    int position() {
        return entry;
    }

    int keyLength() {
        return keyLength;
    }

    /** Bytes of the current entry: header, key, expiry if any, value. */
    int storedLength() {
        int stored = TableFormat.ENTRY_HEADER + keyLength;
        return isTombstone() ? stored : stored + (hasExpiry() ? 8 : 0) + valueLength();
    }

    private boolean hasExpiry() {
        return valueField != TableFormat.TOMBSTONE_LENGTH && (valueField & TableFormat.EXPIRES) != 0;
    }

    private int valueLength() {
        return valueField & ~TableFormat.EXPIRES;
    }

    private int valuePosition() {
        return Block.keyPosition(entry) + keyLength + (hasExpiry() ? 8 : 0);
    }
}
