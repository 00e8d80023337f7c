package io.kvstore.core.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import io.kvstore.core.util.XxHash64;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes one immutable SSTable: data blocks of about {@code blockSize} bytes, then a meta block (key
 * range, entry count, newest timestamp), the index block (last key, offset and length of each data
 * block), the Bloom filter and the footer. Entries must arrive in strictly increasing key order.
 * Heap use is the current block, the index and the filter bits, never the data. See docs/FORMAT.md.
 */
public final class SsTableWriter implements Closeable {
    private final Path file;
    private final FileChannel channel;
    private final int blockSize;
    private final BlockBuilder block = new BlockBuilder();
    private final BlockBuilder index = new BlockBuilder();
    private final long[] bloomWords;
    private final int bloomBlocks;
    private final int bloomHashes;
    private final ByteBuffer out = ByteBuffer.allocate(1 << 20);
    private long offset;
    private long entries;
    private byte[] firstKey;
    private byte[] lastKey;
    private long maxTimestamp = Long.MIN_VALUE;
    private boolean finished;

    /**
     * @param expectedKeys sizes the Bloom filter; more keys than expected only raise its false-positive rate
     */
    public SsTableWriter(Path file, int blockSize, int bloomBitsPerKey, long expectedKeys) throws IOException {
        this.file = file;
        this.blockSize = blockSize;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        if (bloomBitsPerKey > 0) {
            long bits = Math.max(512, Math.min(expectedKeys * bloomBitsPerKey, 1L << 34));
            this.bloomBlocks = (int) ((bits + 511) / 512);
            this.bloomWords = new long[bloomBlocks * BloomFilter.WORDS_PER_BLOCK];
            this.bloomHashes = Math.max(1, Math.min(16, (int) Math.round(bloomBitsPerKey * 0.69)));
        } else {
            this.bloomBlocks = 0;
            this.bloomWords = null;
            this.bloomHashes = 0;
        }
    }

    public void add(Entry entry) throws IOException {
        byte[] key = entry.key();
        if (lastKey != null && Bytes.compare(lastKey, key) >= 0) {
            throw new IllegalArgumentException("keys must strictly increase: " + Bytes.toDebugString(key)
                    + " after " + Bytes.toDebugString(lastKey) + " in " + file);
        }
        if (firstKey == null) {
            firstKey = key;
        }
        block.startRecord(key);
        block.putLong(entry.timestamp());
        byte[] value = entry.value();
        if (value == null) {
            block.putInt(-1);
        } else {
            block.putInt(value.length);
            block.putBytes(value);
        }
        if (bloomWords != null) {
            BloomFilter.set(bloomWords, bloomBlocks, bloomHashes, XxHash64.hash(key));
        }
        lastKey = key;
        entries++;
        maxTimestamp = Math.max(maxTimestamp, entry.timestamp());
        if (block.estimatedSize() >= blockSize) {
            flushBlock();
        }
    }

    /** Bytes written so far, including the current block. */
    public long size() {
        return offset + out.position() + block.estimatedSize();
    }

    public long entryCount() {
        return entries;
    }

    /** Writes meta, index, filter and footer, forces the file to the device and closes it. */
    public void finish() throws IOException {
        if (entries == 0) {
            throw new IllegalStateException("an SSTable needs at least one entry: " + file);
        }
        flushBlock();
        long metaOffset = position();
        BlockBuilder meta = new BlockBuilder();
        meta.startRecord(firstKey);
        meta.putInt(lastKey.length);
        meta.putBytes(lastKey);
        meta.putLong(entries);
        meta.putLong(maxTimestamp);
        int metaLength = meta.finish();
        write(meta.array(), metaLength);

        long indexOffset = position();
        int indexLength = index.finish();
        write(index.array(), indexLength);

        long bloomOffset = position();
        int bloomLength = 0;
        if (bloomWords != null) {
            byte[] bloom = BloomFilter.serialize(bloomWords, bloomBlocks, bloomHashes);
            bloomLength = bloom.length;
            write(bloom, bloomLength);
        }

        ByteBuffer footer = ByteBuffer.allocate(TableFormat.FOOTER_BYTES);
        footer.putLong(metaOffset).putInt(metaLength).putLong(indexOffset).putInt(indexLength)
                .putLong(bloomOffset).putInt(bloomLength).putInt(TableFormat.VERSION);
        CRC32C crc = new CRC32C();
        crc.update(footer.array(), 0, footer.position());
        footer.putInt((int) crc.getValue()).putLong(TableFormat.MAGIC);
        write(footer.array(), TableFormat.FOOTER_BYTES);
        drain();
        channel.force(true);
        channel.close();
        finished = true;
    }

    /** Closes without finishing and deletes the partial file (used when a flush or compaction fails). */
    @Override
    public void close() throws IOException {
        if (!finished) {
            channel.close();
            Files.deleteIfExists(file);
            finished = true;
        }
    }

    private void flushBlock() throws IOException {
        if (block.isEmpty()) {
            return;
        }
        long blockOffset = position();
        int length = block.finish();
        write(block.array(), length);
        index.startRecord(lastKey);
        index.putLong(blockOffset);
        index.putInt(length);
        block.reset();
    }

    private long position() {
        return offset + out.position();
    }

    private void write(byte[] bytes, int length) throws IOException {
        for (int done = 0; done < length; ) {
            if (!out.hasRemaining()) {
                drain();
            }
            int n = Math.min(out.remaining(), length - done);
            out.put(bytes, done, n);
            done += n;
        }
    }

    private void drain() throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            offset += channel.write(out);
        }
        out.clear();
    }
}
