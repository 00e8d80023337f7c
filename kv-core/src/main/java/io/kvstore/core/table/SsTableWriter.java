package io.kvstore.core.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import io.kvstore.core.util.Coding;
import io.kvstore.core.util.Crc32c;
import io.kvstore.core.util.XxHash64;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes one immutable SSTable: data blocks, a Bloom filter, a block index, a meta block and a
 * footer (see docs/FORMAT.md). Entries must arrive in strictly increasing key order.
 *
 * <p>Heap use while writing: one data block, the filter bits and the index (about 2% of the table).
 * REQUIRES: external synchronization (one thread writes a table).
 */
public final class SsTableWriter implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    private final OutputStream out;
    private final int blockSize;
    private final BlockBuilder data = new BlockBuilder();
    private final BlockBuilder index = new BlockBuilder();
    private final BloomFilterBuilder bloom;
    private final byte[] handle = new byte[TableFormat.HANDLE_SIZE];
    private long position;
    private long entryCount;
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private byte[] firstKey;
    private byte[] lastKey;
    private int maxBlockSize;
    private boolean finished;

    /**
     * Creates {@code path} (which must not exist) for a table of at most {@code expectedKeys} keys;
     * the Bloom filter is sized for that many ({@code bloomBitsPerKey} 0 writes no filter).
     */
    public SsTableWriter(Path path, int blockSize, int bloomBitsPerKey, long expectedKeys) throws IOException {
        this.path = path;
        this.blockSize = blockSize;
        this.bloom = bloomBitsPerKey > 0 ? new BloomFilterBuilder(expectedKeys, bloomBitsPerKey) : null;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
    }

    public void add(Entry entry) throws IOException {
        byte[] key = entry.key();
        if (lastKey != null && Bytes.compare(lastKey, key) >= 0) {
            throw new IllegalArgumentException("keys out of order in " + path + ": " + Bytes.toDebugString(key)
                    + " after " + Bytes.toDebugString(lastKey));
        }
        int valueLength = entry.isTombstone() ? 0 : entry.value().length;
        if (data.count() > 0 && data.estimatedSize() + TableFormat.ENTRY_HEADER + key.length + valueLength + 4 > blockSize) {
            flushDataBlock();
        }
        data.add(key, entry.value(), entry.timestamp());
        if (bloom != null) {
            bloom.add(XxHash64.hash(key));
        }
        if (firstKey == null) {
            firstKey = key;
        }
        lastKey = key;
        entryCount++;
        minTimestamp = Math.min(minTimestamp, entry.timestamp());
        maxTimestamp = Math.max(maxTimestamp, entry.timestamp());
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

        byte[] meta = new byte[8 * 3 + 4 * 3 + 4 + firstKey.length + 4 + lastKey.length + 4];
        int p = 0;
        Coding.putLong(meta, p, entryCount);
        Coding.putLong(meta, p + 8, minTimestamp);
        Coding.putLong(meta, p + 16, maxTimestamp);
        Coding.putInt(meta, p + 24, bloomLines);
        Coding.putInt(meta, p + 28, bloomProbes);
        Coding.putInt(meta, p + 32, bloomCrc);
        p += 36;
        Coding.putInt(meta, p, firstKey.length);
        System.arraycopy(firstKey, 0, meta, p + 4, firstKey.length);
        p += 4 + firstKey.length;
        Coding.putInt(meta, p, lastKey.length);
        System.arraycopy(lastKey, 0, meta, p + 4, lastKey.length);
        p += 4 + lastKey.length;
        Coding.putInt(meta, p, Crc32c.of(meta, 0, p));
        long metaOffset = position;
        write(meta, meta.length);

        maxBlockSize = Math.max(maxBlockSize, Math.max(meta.length, Math.max(indexSize, bloomSize)));
        byte[] footer = new byte[TableFormat.FOOTER_SIZE];
        putHandle(footer, 0, metaOffset, meta.length);
        putHandle(footer, 12, indexOffset, indexSize);
        putHandle(footer, 24, bloomOffset, bloomSize);
        Coding.putInt(footer, 36, maxBlockSize);
        Coding.putInt(footer, 40, TableFormat.VERSION);
        Coding.putInt(footer, 44, Crc32c.of(footer, 0, 44));
        Coding.putLong(footer, 48, TableFormat.MAGIC);
        write(footer, footer.length);

        out.flush();
        channel.force(true);
        finished = true;
        out.close();
        return position;
    }

    /** Closes and deletes an unfinished table (a failed or abandoned flush or compaction). */
    public void abort() throws IOException {
        if (!finished) {
            finished = true;
            try {
                out.close();
            } catch (IOException ignored) {
                // The file is being deleted; a failed close changes nothing.
            }
            Files.deleteIfExists(path);
        }
    }

    @Override
    public void close() throws IOException {
        abort();
    }

    private void flushDataBlock() throws IOException {
        data.finish();
        long offset = position;
        int size = data.size();
        write(data.buffer(), size);
        maxBlockSize = Math.max(maxBlockSize, size);
        Coding.putLong(handle, 0, offset);
        Coding.putInt(handle, 8, size);
        index.add(lastKey, handle, 0);
        data.reset();
    }

    private void write(byte[] bytes, int length) throws IOException {
        out.write(bytes, 0, length);
        position += length;
    }

    private static void putHandle(byte[] dst, int at, long offset, int size) {
        Coding.putLong(dst, at, offset);
        Coding.putInt(dst, at + 8, size);
    }
}
