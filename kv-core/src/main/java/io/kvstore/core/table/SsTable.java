package io.kvstore.core.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open SSTable, read through a read-only memory mapping: the page cache holds the data, the heap
 * only the key range. Footer, meta, index and filter are verified when the table opens; each data block
 * is verified the first time it is read (a bit per block remembers it), so a flipped byte surfaces as
 * a {@link CorruptionException} naming the file and offset, never as a wrong answer.
 *
 * <p>Reference counted: the store's current version and every open snapshot hold a reference; the file
 * is deleted when it is obsolete (compacted away) and the last reference is released.
 */
public final class SsTable {
    private static final Logger LOG = LoggerFactory.getLogger(SsTable.class);

    private final Path file;
    private final long id;
    private final MappedByteBuffer buf;
    private final long size;
    private final byte[] minKey;
    private final byte[] maxKey;
    private final long entryCount;
    private final long maxTimestamp;
    private final int indexOffset;
    private final int indexLength;
    private final int bloomOffset;
    private final boolean hasBloom;
    /** One bit per data block, set once its checksum passed; racy updates only cost a re-check. */
    private final long[] verified;
    private final AtomicInteger refs = new AtomicInteger();
    private volatile boolean obsolete;

    private SsTable(Path file, long id) throws IOException {
        this.file = file;
        this.id = id;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            size = channel.size();
            if (size > Integer.MAX_VALUE) {
                throw new CorruptionException(file, 0, "table of " + size + " bytes exceeds the 2 GiB a table may have");
            }
            if (size < TableFormat.FOOTER_BYTES) {
                throw new CorruptionException(file, 0, "file of " + size + " bytes is shorter than a footer");
            }
            buf = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
        int footer = (int) size - TableFormat.FOOTER_BYTES;
        if (buf.getLong(footer + 44) != TableFormat.MAGIC) {
            throw new CorruptionException(file, footer + 44, "bad magic number: not a kvstore table");
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.slice(footer, 40));
        if ((int) crc.getValue() != buf.getInt(footer + 40)) {
            throw new CorruptionException(file, footer, "footer checksum mismatch");
        }
        int version = buf.getInt(footer + 36);
        if (version != TableFormat.VERSION) {
            throw new CorruptionException(file, footer + 36, "unsupported table format version " + version);
        }
        int metaOffset = checkedOffset(buf.getLong(footer), footer, "meta");
        int metaLength = buf.getInt(footer + 8);
        indexOffset = checkedOffset(buf.getLong(footer + 12), footer, "index");
        indexLength = buf.getInt(footer + 20);
        bloomOffset = checkedOffset(buf.getLong(footer + 24), footer, "bloom filter");
        int bloomLength = buf.getInt(footer + 32);
        verifyBlock(metaOffset, metaLength, "meta block");
        verifyBlock(indexOffset, indexLength, "index block");
        hasBloom = bloomLength > 0;
        if (hasBloom) {
            crc.reset();
            crc.update(buf.slice(bloomOffset, bloomLength - 4));
            if ((int) crc.getValue() != buf.getInt(bloomOffset + bloomLength - 4)) {
                throw new CorruptionException(file, bloomOffset, "bloom filter checksum mismatch");
            }
        }
        int meta = Block.record(buf, metaOffset, metaLength, 1, 0);
        minKey = Block.key(buf, meta);
        int afterMin = meta + 4 + minKey.length;
        maxKey = Block.key(buf, afterMin);
        int afterMax = afterMin + 4 + maxKey.length;
        entryCount = buf.getLong(afterMax);
        maxTimestamp = buf.getLong(afterMax + 8);
        verified = new long[(Block.count(buf, indexOffset, indexLength) + 63) / 64];
    }

    /** Opens and verifies the table in {@code file}. */
    public static SsTable open(Path file, long id) throws IOException {
        return new SsTable(file, id);
    }

    public long id() {
        return id;
    }

    public Path file() {
        return file;
    }

    public long sizeBytes() {
        return size;
    }

    public long entryCount() {
        return entryCount;
    }

    /** The highest timestamp of any entry: a reader holding a newer version can skip this table. */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    public byte[] minKey() {
        return minKey;
    }

    public byte[] maxKey() {
        return maxKey;
    }

    /**
     * The version of {@code key} in this table or {@code null}; {@code hash} is its
     * {@link io.kvstore.core.util.XxHash64#hash}.
     */
    public Entry get(byte[] key, long hash) throws IOException {
        if (Bytes.compare(key, minKey) < 0 || Bytes.compare(key, maxKey) > 0) {
            return null;
        }
        if (hasBloom && !BloomFilter.mightContain(buf, bloomOffset, hash)) {
            return null;
        }
        int blockNumber = Block.seek(buf, indexOffset, indexLength, key);
        if (blockNumber == Block.count(buf, indexOffset, indexLength)) {
            return null;
        }
        int block = dataBlockOffset(blockNumber);
        int length = dataBlockLength(blockNumber);
        checkDataBlock(blockNumber, block, length);
        int i = Block.seek(buf, block, length, key);
        int count = Block.count(buf, block, length);
        if (i == count) {
            return null;
        }
        int record = Block.record(buf, block, length, count, i);
        return Block.compareKey(buf, record, key) == 0 ? decode(record, key) : null;
    }

    /** Entries with keys in {@code [from, to)} ({@code null} = open end), lazily, in key order. */
    public Iterator<Entry> iterator(byte[] from, byte[] to) {
        return new TableIterator(from, to);
    }

    /** Takes a reference; false if the table was already released for good. */
    public boolean acquire() {
        for (int r = refs.get(); ; r = refs.get()) {
            if (r < 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    public void release() {
        if (refs.decrementAndGet() == 0 && obsolete && refs.compareAndSet(0, -1)) {
            deleteFile();
        }
    }

    /** Marks the table compacted away: its file goes when the last reader releases it. */
    public void markObsolete() {
        obsolete = true;
        if (refs.compareAndSet(0, -1)) {
            deleteFile();
        }
    }

    private void deleteFile() {
        try {
            Files.deleteIfExists(file); // the mapping stays valid for anyone still holding the buffer
        } catch (IOException e) {
            LOG.warn("could not delete obsolete table {}", file, e);
        }
    }

    private int dataBlockOffset(int blockNumber) {
        int entry = Block.record(buf, indexOffset, indexLength, Block.count(buf, indexOffset, indexLength), blockNumber);
        return (int) buf.getLong(entry + 4 + buf.getInt(entry));
    }

    private int dataBlockLength(int blockNumber) {
        int entry = Block.record(buf, indexOffset, indexLength, Block.count(buf, indexOffset, indexLength), blockNumber);
        return buf.getInt(entry + 12 + buf.getInt(entry));
    }

    private void checkDataBlock(int blockNumber, int block, int length) throws CorruptionException {
        long bit = 1L << (blockNumber & 63);
        if ((verified[blockNumber >>> 6] & bit) != 0) {
            return;
        }
        if (block < 0 || length < 8 || (long) block + length > indexOffset) {
            throw new CorruptionException(file, block, "data block " + blockNumber + " out of bounds");
        }
        verifyBlock(block, length, "data block " + blockNumber);
        verified[blockNumber >>> 6] |= bit;
    }

    private void verifyBlock(int offset, int length, String what) throws CorruptionException {
        if (offset < 0 || length < 8 || (long) offset + length > size - TableFormat.FOOTER_BYTES) {
            throw new CorruptionException(file, offset, what + " out of bounds (length " + length + ")");
        }
        if (!Block.verify(buf, offset, length)) {
            throw new CorruptionException(file, offset, what + " checksum mismatch");
        }
    }

    private int checkedOffset(long offset, int footer, String what) throws CorruptionException {
        if (offset < 0 || offset > footer) {
            throw new CorruptionException(file, footer, what + " offset " + offset + " out of bounds");
        }
        return (int) offset;
    }

    private Entry decode(int record, byte[] knownKey) {
        int keyLength = buf.getInt(record);
        byte[] key = knownKey != null ? knownKey : Block.key(buf, record);
        int p = record + 4 + keyLength;
        long timestamp = buf.getLong(p);
        int valueLength = buf.getInt(p + 8);
        if (valueLength < 0) {
            return Entry.tombstone(key, timestamp);
        }
        byte[] value = new byte[valueLength];
        buf.get(p + 12, value);
        return Entry.value(key, value, timestamp);
    }

    /** Walks data blocks in order from the block holding {@code from}; checks each block once. */
    private final class TableIterator implements Iterator<Entry> {
        private final byte[] to;
        private final int blocks = Block.count(buf, indexOffset, indexLength);
        private int blockNumber;
        private int block;
        private int length;
        private int count;
        private int i;
        private Entry next;

        TableIterator(byte[] from, byte[] to) {
            this.to = to;
            blockNumber = from == null ? 0 : Block.seek(buf, indexOffset, indexLength, from);
            if (blockNumber < blocks) {
                openBlock();
                i = from == null ? 0 : Block.seek(buf, block, length, from);
            }
            advance();
        }

        private void openBlock() {
            block = dataBlockOffset(blockNumber);
            length = dataBlockLength(blockNumber);
            try {
                checkDataBlock(blockNumber, block, length);
            } catch (CorruptionException e) {
                throw new UncheckedIOException(e);
            }
            count = Block.count(buf, block, length);
            i = 0;
        }

        private void advance() {
            next = null;
            while (blockNumber < blocks) {
                if (i < count) {
                    int record = Block.record(buf, block, length, count, i++);
                    Entry e = decode(record, null);
                    if (to == null || Bytes.compare(e.key(), to) < 0) {
                        next = e;
                    } else {
                        blockNumber = blocks; // past the end of the range
                    }
                    return;
                }
                if (++blockNumber < blocks) {
                    openBlock();
                }
            }
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Entry next() {
            if (next == null) {
                throw new NoSuchElementException();
            }
            Entry e = next;
            advance();
            return e;
        }
    }
}
