package io.kvstore.core.internal.table;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.NoSuchElementException;

/**
 * Walks a table's data blocks in order from the block that may hold {@code from}, up to {@code to}; adds
 * the blocks it decompresses to the block cache only if {@code fillCache}.
 */
final class TableIterator implements CloseableIterator<Entry> {
    private final SsTable table;
    private final byte[] to;
    private final int blockCount;
    private final boolean fillCache;
    private final BlockCursor cursor = new BlockCursor();
    private int block;
    private int index;
    private Entry next;

    TableIterator(SsTable table, byte[] from, byte[] to, boolean fillCache) {
        this.table = table;
        this.fillCache = fillCache;
        this.to = to;
        this.blockCount = table.index().count();
        try {
            block = from == null ? 0 : table.index().find(from);
            if (block < blockCount) {
                table.load(block, cursor, fillCache);
                index = from == null ? 0 : Block.lowerBound(cursor.buf, cursor.base, cursor.size, cursor.count, from);
            }
            advance();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InternalError e) {
            throw new UncheckedIOException(table.readFault(e));
        }
    }

    private void advance() throws IOException {
        while (block < blockCount) {
            if (index < cursor.count) {
                int entry = Block.entryPosition(cursor.buf, cursor.base, cursor.size, cursor.count, index++);
                if (to != null && Block.compareKey(cursor.buf, Block.keyPosition(entry),
                        Block.keyLength(cursor.buf, entry), to) >= 0) {
                    break;
                }
                next = Block.decode(cursor.buf, entry);
                return;
            }
            if (++block < blockCount) {
                table.load(block, cursor, fillCache);
                index = 0;
            }
        }
        next = null;
        block = blockCount;
    }

    @Override
    public boolean hasNext() {
        return next != null;
    }

    @Override
    public Entry next() {
        Entry result = next;
        if (result == null) {
            throw new NoSuchElementException();
        }
        try {
            advance();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InternalError e) {
            throw new UncheckedIOException(table.readFault(e));
        }
        return result;
    }

    @Override
    public void close() {
        next = null;
        block = blockCount;
    }
}
