package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.Compression;
import io.kvstore.core.Entry;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import io.kvstore.core.internal.util.DiskErrors;
import io.kvstore.core.internal.util.FileWriteback;
import io.kvstore.core.hash.XxHash64;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Writes one immutable SSTable in the current format: data blocks (compressed with the table's
 * codec), a Bloom filter, a block index, a meta block and a footer (see docs/FORMAT.md). Entries must
 * arrive in strictly increasing key order.
 *
 * <p>Heap use while writing: one data block, the filter bits and the index (a small fraction of the table).
 * REQUIRES: external synchronization (one thread writes a table).
 */
public final class SsTableWriter implements AutoCloseable {
    private static final int BUFFER_BYTES = 1 << 16;
    private final Storage storage;
    private final Path path;
    private final FileChannel channel;
    private final OutputStream out;
    /** Starts the table's write-back as it grows, so that finishing it does not queue it all at once. */
    private final FileWriteback writeback;
    private final int blockSize;
    private final BlockBuilder data = new BlockBuilder();
    private final BlockBuilder index = new BlockBuilder();
    private final BloomFilterBuilder bloom;
    private final BlockCodec codec;
    private final CompressionBackoff backoff = new CompressionBackoff();
    /** Compressed bytes of one data block plus its trailer; grown as blocks need. */
    private byte[] compressed = new byte[0];
    private final byte[] handle = new byte[TableFormat.HANDLE_SIZE];
    private long position;
    private long entryCount;
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private byte[] firstKey;
    /** The last key added, in {@code lastKey[0, lastKeyLength)}; the array is reused from key to key. */
    private byte[] lastKey = new byte[64];
    private int lastKeyLength = -1;
    private int maxBlockSize;
    private boolean finished;

    /** An uncompressed table on the real file system. */
    public SsTableWriter(Path path, int blockSize, int bloomBitsPerKey, long expectedKeys) throws IOException {
        this(path, blockSize, bloomBitsPerKey, expectedKeys, Compression.NONE);
    }

    /** A table on the real file system. */
    public SsTableWriter(Path path, int blockSize, int bloomBitsPerKey, long expectedKeys, Compression compression)
            throws IOException {
        this(Storage.local(), path, blockSize, bloomBitsPerKey, expectedKeys, compression);
    }

    /**
     * Creates {@code path} (which must not exist) for a table of at most {@code expectedKeys} keys;
     * the Bloom filter is sized for that many ({@code bloomBitsPerKey} 0 writes no filter). Data blocks
     * are compressed with {@code compression}, which the table records.
     */
    public SsTableWriter(Storage storage, Path path, int blockSize, int bloomBitsPerKey, long expectedKeys,
                         Compression compression) throws IOException {
        this.storage = storage;
        this.path = path;
        this.blockSize = blockSize;
        this.codec = BlockCodec.of(compression);
        this.bloom = bloomBitsPerKey > 0 ? new BloomFilterBuilder(expectedKeys, bloomBitsPerKey) : null;
        this.channel = storage.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        this.out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_BYTES);
        this.writeback = FileWriteback.open(path);
    }

    public void add(Entry entry) throws IOException {
        byte[] key = entry.key();
        if (lastKeyLength >= 0 && Arrays.compareUnsigned(lastKey, 0, lastKeyLength, key, 0, key.length) >= 0) {
            throw outOfOrder(key);
        }
        int valueLength = entry.isTombstone() ? 0 : entry.value().length + (entry.expires() ? 8 : 0);
        if (data.count() > 0 && data.estimatedSize() + TableFormat.ENTRY_HEADER + key.length + valueLength + 4 > blockSize) {
            flushDataBlock();
        }
        data.add(key, entry.value(), entry.timestamp(), entry.expiresAtMillis());
        ensureLastKeyFits(key.length);
        System.arraycopy(key, 0, lastKey, 0, key.length);
        added(key.length, entry.timestamp());
    }

    /** Adds the entry {@code cursor} is on, copying its stored bytes as they are. */
    public void add(TableCursor cursor) throws IOException {
        ByteBuffer buf = cursor.buffer();
        int entry = cursor.position();
        int keyAt = Block.keyPosition(entry);
        int keyLength = cursor.keyLength();
        if (lastKeyLength >= 0 && Block.compareKey(buf, keyAt, keyLength, lastKey, lastKeyLength) <= 0) {
            throw outOfOrder(cursor.key());
        }
        int stored = cursor.storedLength();
        if (data.count() > 0 && data.estimatedSize() + stored + 4 > blockSize) {
            flushDataBlock();
        }
        data.addStored(buf, entry, stored);
        ensureLastKeyFits(keyLength);
        buf.get(keyAt, lastKey, 0, keyLength);
        added(keyLength, cursor.timestamp());
    }

    private IllegalArgumentException outOfOrder(byte[] key) {
        return new IllegalArgumentException("keys out of order in " + path + ": " + Bytes.toDebugString(key)
                + " after " + Bytes.toDebugString(Arrays.copyOf(lastKey, lastKeyLength)));
    }

    private void ensureLastKeyFits(int length) {
        if (lastKey.length < length) {
            lastKey = new byte[Math.max(length, 2 * lastKey.length)];
        }
    }

    /** Counts the entry just added, whose key of {@code keyLength} bytes is now in {@link #lastKey}. */
    private void added(int keyLength, long timestamp) {
        lastKeyLength = keyLength;
        if (bloom != null) {
            bloom.add(XxHash64.hash(lastKey, 0, keyLength));
        }
        if (firstKey == null) {
            firstKey = Arrays.copyOf(lastKey, keyLength);
        }
        entryCount++;
        minTimestamp = Math.min(minTimestamp, timestamp);
        maxTimestamp = Math.max(maxTimestamp, timestamp);
    }

    public long entryCount() {
        return entryCount;
    }

    /** Size of the file so far: what a compaction has written. */
    public long bytesWritten() {
        return position;
    }

    /** Completes the table, forces it to the device and closes it; returns its size in bytes. */
    public long finish() throws IOException {
        if (entryCount == 0) {
            throw new IllegalStateException("an SSTable needs at least one entry: " + path);
        }
        if (data.count() > 0) {
            flushDataBlock();
        }
        int bloomLines = 0;
        int bloomProbes = 0;
        int bloomCrc = 0;
        long bloomOffset = 0;
        int bloomSize = 0;
        if (bloom != null) {
            // Align the filter so each 64-byte line is one cache line of the mapping.
            int padding = (int) ((BloomFilter.LINE_BYTES - position % BloomFilter.LINE_BYTES) % BloomFilter.LINE_BYTES);
            write(new byte[padding], padding);
            byte[] bits = bloom.toBytes();
            bloomOffset = position;
            bloomSize = bits.length;
            bloomLines = bloom.lines();
            bloomProbes = bloom.probes();
            bloomCrc = Crc32c.of(bits, 0, bits.length);
            write(bits, bits.length);
        }
        index.finish();
        long indexOffset = position;
        int indexSize = index.size();
        write(index.buffer(), indexSize);

        byte[] meta = new TableMeta(entryCount, minTimestamp, maxTimestamp, bloomLines, bloomProbes, bloomCrc,
                firstKey, Arrays.copyOf(lastKey, lastKeyLength), codec.id()).encode(TableFormat.V3);
        long metaOffset = position;
        write(meta, meta.length);

        maxBlockSize = Math.max(maxBlockSize, Math.max(meta.length, Math.max(indexSize, bloomSize)));
        byte[] footer = new Footer(TableFormat.V3, new BlockHandle(metaOffset, meta.length),
                new BlockHandle(indexOffset, indexSize), new BlockHandle(bloomOffset, bloomSize), maxBlockSize).encode();
        write(footer, footer.length);

        try {
            out.flush();
        } catch (IOException e) {
            throw DiskErrors.naming("write", path, e);
        }
        try {
            channel.force(true);
        } catch (IOException e) {
            throw DiskErrors.fsyncFailed(path, e);
        }
        writeback.close();
        out.close();
        // Only now: a close that fails leaves the table unfinished, for abort() to delete.
        finished = true;
        return position;
    }

    /** Closes and deletes an unfinished table (a failed or abandoned flush or compaction). */
    public void abort() throws IOException {
        if (!finished) {
            finished = true;
            writeback.close();
            try {
                out.close();
            } catch (IOException ignored) {
                // The file is being deleted; a failed close changes nothing.
            }
            storage.delete(path);
        }
    }

    @Override
    public void close() throws IOException {
        abort();
    }

    private void flushDataBlock() throws IOException {
        data.finish();
        long offset = position;
        int size;
        if (codec.isIdentity()) {
            size = data.size();
            write(data.buffer(), size);
        } else {
            size = writeCompressed(data.buffer(), data.size());
        }
        maxBlockSize = Math.max(maxBlockSize, size);
        new BlockHandle(offset, size).encode(handle, 0);
        index.add(lastKey, lastKeyLength, handle, 0, Entry.NEVER);
        data.reset();
    }

    /**
     * Writes {@code block[0, length)} compressed, or as it is where compression saves too little
     * ({@link TableFormat#STORE_SAVINGS_DIVISOR}) or is not tried ({@link CompressionBackoff}), with its
     * trailer; returns the bytes written.
     */
    private int writeCompressed(byte[] block, int length) throws IOException {
        int bound = Math.max(codec.maxCompressedLength(length), length) + TableFormat.COMPRESSED_TRAILER;
        if (compressed.length < bound) {
            compressed = new byte[bound];
        }
        int n = length;
        boolean stored = true;
        if (backoff.tryNext()) {
            n = codec.compress(block, length, compressed);
            stored = n > length - length / TableFormat.STORE_SAVINGS_DIVISOR;
            if (stored) {
                backoff.incompressible();
            } else {
                backoff.compressed();
            }
        }
        if (stored) {
            System.arraycopy(block, 0, compressed, 0, length);
            n = length;
        }
        int sizeField = stored ? length | TableFormat.STORED : length;
        Coding.putInt(compressed, n, sizeField);
        Coding.putInt(compressed, n + 4, Crc32c.of(compressed, 0, n + 4));
        int size = n + TableFormat.COMPRESSED_TRAILER;
        if (size > TableFormat.MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("compressed block of " + size + " bytes exceeds "
                    + TableFormat.MAX_BLOCK_SIZE + " in " + path);
        }
        write(compressed, size);
        return size;
    }

    private void write(byte[] bytes, int length) throws IOException {
        try {
            out.write(bytes, 0, length);
        } catch (IOException e) {
            throw DiskErrors.naming("write", path, e);
        }
        position += length;
        writeback.written(position - BUFFER_BYTES); // what the buffer holds is not in the file yet
    }
}
