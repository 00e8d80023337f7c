package io.kvstore.core.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.DaoStats;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.util.Crc32c;
import io.kvstore.core.util.XxHash64;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open, immutable SSTable read through memory mappings: the block index, the Bloom filter and
 * the data blocks stay in the page cache, not on the heap, so heap use does not grow with the data.
 * Files over 1 GiB are mapped in 1 GiB windows that overlap by the largest block, so every block
 * lies inside one window.
 *
 * <p>Each data block's CRC32C is checked the first time it is read after opening; index, filter and
 * meta are checked at open. Reads are thread-safe. The table is reference counted: the live set
 * holds one reference and every range snapshot one more; once marked obsolete, the file is deleted
 * when the last reference is released. Mappings are never unmapped explicitly (a reader racing a
 * compaction may still touch them); the garbage collector releases them.
 */
public final class SsTable {
    private final Path path;
    private final long fileNumber;
    private final long fileSize;
    private final MappedByteBuffer[] segments;
    private final int segmentShift;
    private final long entryCount;
    private final long minTimestamp;
    private final long maxTimestamp;
    private final byte[] firstKey;
    private final byte[] lastKey;
    private final BloomFilter bloom;
    /** How data blocks are stored; the identity codec lets reads use the mapping in place. */
    private final BlockCodec codec;
    private final int formatVersion;
    private final ByteBuffer indexBuf;
    private final int indexBase;
    private final int indexSize;
    private final int blockCount;
    /**
     * The first 8 bytes of each block's last key, big-endian, zero-padded, sign bit flipped: a
     * primitive array (8 bytes per block, ~0.2% of the data) that narrows the index search to the
     * blocks sharing the key's prefix, so a lookup rarely touches the mapped index.
     */
    private final long[] lastKeyPrefixes;
    /** One bit per data block: its checksum has been verified (racy updates only cost a re-check). */
    private final long[] verified;
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile boolean obsolete;
    /** Every page was in memory at the last {@link #checkResidency()}. */
    private volatile boolean resident;

    private SsTable(Path path, long fileNumber, long fileSize, MappedByteBuffer[] segments, int segmentShift,
                    TableMeta meta, BlockCodec codec, int formatVersion, BloomFilter bloom, ByteBuffer indexBuf,
                    int indexBase, int indexSize) {
        this.path = path;
        this.fileNumber = fileNumber;
        this.fileSize = fileSize;
        this.segments = segments;
        this.segmentShift = segmentShift;
        this.entryCount = meta.entryCount();
        this.minTimestamp = meta.minTimestamp();
        this.maxTimestamp = meta.maxTimestamp();
        this.firstKey = meta.firstKey();
        this.lastKey = meta.lastKey();
        this.codec = codec;
        this.formatVersion = formatVersion;
        this.bloom = bloom;
        this.indexBuf = indexBuf;
        this.indexBase = indexBase;
        this.indexSize = indexSize;
        this.blockCount = Block.count(indexBuf, indexBase, indexSize);
        this.verified = new long[(blockCount + 63) >>> 6];
        this.lastKeyPrefixes = new long[blockCount];
        for (int i = 0; i < blockCount; i++) {
            int entry = Block.entryPosition(indexBuf, indexBase, indexSize, blockCount, i);
            lastKeyPrefixes[i] = Block.keyPrefix(indexBuf, Block.keyPosition(entry), Block.keyLength(indexBuf, entry));
        }
    }

    /** Opens and validates the table at {@code path}; {@link CorruptionException} names what is wrong. */
    public static SsTable open(Path path, long fileNumber) throws IOException {
        return open(path, fileNumber, TableFormat.SEGMENT_SHIFT);
    }

    /** Opens with mapping windows of {@code 2^segmentShift} bytes (small windows let tests cross them). */
    static SsTable open(Path path, long fileNumber, int segmentShift) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < TableFormat.FOOTER_SIZE) {
                throw new CorruptionException(path, 0, "file of " + size + " bytes is too short for an SSTable");
            }
            long footerOffset = size - TableFormat.FOOTER_SIZE;
            Footer footer = Footer.decode(path, readFully(channel, path, footerOffset, TableFormat.FOOTER_SIZE),
                    footerOffset);
            long metaOffset = footer.meta().offset();
            TableMeta meta = TableMeta.decode(path, footer.version(),
                    readFully(channel, path, metaOffset, footer.meta().size()), metaOffset);
            BlockCodec codec = BlockCodec.byId(meta.codecId(), path, metaOffset);
            long indexOffset = footer.index().offset();
            int indexSize = footer.index().size();
            long bloomOffset = footer.bloom().offset();
            int bloomSize = footer.bloom().size();
            int bloomLines = meta.bloomLines();
            int bloomProbes = meta.bloomProbes();
            int bloomCrc = meta.bloomCrc();
            int maxBlockSize = footer.maxBlockSize();

            MappedByteBuffer[] segments = map(channel, size, maxBlockSize, segmentShift);
            ByteBuffer indexBuf = segment(segments, segmentShift, indexOffset);
            int indexBase = local(segmentShift, indexOffset);
            verifyBlock(path, indexBuf, indexBase, indexSize, indexOffset, -1);
            BloomFilter bloom = null;
            if (bloomSize > 0) {
                ByteBuffer bloomBuf = segment(segments, segmentShift, bloomOffset);
                int bloomBase = local(segmentShift, bloomOffset);
                if (bloomLines * (long) BloomFilter.LINE_BYTES != bloomSize
                        || Crc32c.of(bloomBuf, bloomBase, bloomSize) != bloomCrc) {
                    throw new CorruptionException(path, bloomOffset, "Bloom filter checksum mismatch");
                }
                bloom = new BloomFilter(bloomBuf, bloomBase, bloomLines, bloomProbes);
            }
            return new SsTable(path, fileNumber, size, segments, segmentShift, meta, codec, footer.version(), bloom,
                    indexBuf, indexBase, indexSize);
        }
    }

    /** The hash every table's Bloom filter is probed with; compute it once per lookup. */
    public static long hash(byte[] key) {
        return XxHash64.hash(key);
    }

    /**
     * The entry stored for {@code key}, or {@code null}; {@code hash} is {@link #hash(byte[])} of the key.
     * Skips the table by key range and Bloom filter before touching the index.
     */
    public Entry get(byte[] key, long hash) throws IOException {
        return get(key, hash, null);
    }

    /** {@link #get(byte[], long)} that counts in {@code stats} (if not null) a key its Bloom filter ruled out. */
    public Entry get(byte[] key, long hash, DaoStats stats) throws IOException {
        if (Bytes.compare(key, firstKey) < 0 || Bytes.compare(key, lastKey) > 0) {
            return null;
        }
        if (bloom != null && !bloom.mightContain(hash)) {
            if (stats != null) {
                stats.bloomRuledOut();
            }
            return null;
        }
        int block = findBlock(key);
        if (block == blockCount) {
            return null;
        }
        long offset = blockOffset(block);
        int size = blockSize(block);
        ByteBuffer buf = segment(segments, segmentShift, offset);
        int base = local(segmentShift, offset);
        ensureVerified(block, buf, base, size, offset);
        if (!codec.isIdentity()) {
            buf = decompress(block, buf, base, size, offset);
            base = 0;
            size = buf.capacity();
        }
        int count = Block.count(buf, base, size);
        int i = Block.lowerBound(buf, base, size, count, key);
        if (i == count) {
            return null;
        }
        int entry = Block.entryPosition(buf, base, size, count, i);
        int keyLength = Block.keyLength(buf, entry);
        if (Block.compareKey(buf, Block.keyPosition(entry), keyLength, key) != 0) {
            return null;
        }
        return Block.decodeWithKey(buf, entry, key.clone());
    }

    /**
     * Whether every page of the file was in memory when last checked: then a lookup reads no disk,
     * unless the OS evicted pages since. False until the first {@link #checkResidency()}.
     */
    public boolean isResident() {
        return resident;
    }

    /**
     * Asks the OS whether every page of the file is in memory (mincore, one system call per mapping
     * window, through {@link MappedByteBuffer#isLoaded()}) and remembers the answer for
     * {@link #isResident()}. Its cost grows with the file, so call it where a thread may wait.
     */
    public boolean checkResidency() {
        boolean all = true;
        for (int i = 0; i < segments.length && all; i++) {
            all = segments[i].isLoaded();
        }
        resident = all;
        return all;
    }

    /** Entries with keys in {@code [from, to)} in key order; {@code null} bounds are open. */
    public CloseableIterator<Entry> iterator(byte[] from, byte[] to) {
        return new TableIterator(from, to);
    }

    public Path path() {
        return path;
    }

    public long fileNumber() {
        return fileNumber;
    }

    /** The codec of the table's data blocks: {@code none}, {@code lz4} or {@code zstd}. */
    public String codecName() {
        return codec.name();
    }

    /** The table's format version (docs/FORMAT.md). */
    public int formatVersion() {
        return formatVersion;
    }

    public long fileSize() {
        return fileSize;
    }

    public long entryCount() {
        return entryCount;
    }

    public long minTimestamp() {
        return minTimestamp;
    }

    public long maxTimestamp() {
        return maxTimestamp;
    }

    public byte[] firstKey() {
        return firstKey.clone();
    }

    public byte[] lastKey() {
        return lastKey.clone();
    }

    /** Takes a reference; fails if the table was already released for good. */
    public void retain() {
        int r;
        do {
            r = references.get();
            if (r <= 0) {
                throw new IllegalStateException("table already released: " + path);
            }
        } while (!references.compareAndSet(r, r + 1));
    }

    /** Drops a reference; the last one deletes the file if the table is obsolete. */
    public void release() throws IOException {
        int r = references.decrementAndGet();
        if (r == 0 && obsolete) {
            Files.deleteIfExists(path);
        } else if (r < 0) {
            throw new IllegalStateException("table released too often: " + path);
        }
    }

    /** Marks the file for deletion once unreferenced (it left the live set). */
    public void markObsolete() {
        obsolete = true;
    }

    @Override
    public String toString() {
        return "SsTable{" + path.getFileName() + ", v" + formatVersion + ", " + codec + ", " + entryCount + " entries, "
                + fileSize + " bytes}";
    }

    /** The first block whose last key is {@code >= key}, or {@code blockCount}. */
    private int findBlock(byte[] key) {
        long prefix = Block.keyPrefix(key);
        long[] prefixes = lastKeyPrefixes;
        // [lo, hi): blocks whose prefix equals the key's; before them every last key is smaller, after them larger.
        int lo = 0;
        int hi = blockCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (prefixes[mid] < prefix) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        hi = lo;
        while (hi < blockCount && prefixes[hi] == prefix) {
            hi++;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int entry = Block.entryPosition(indexBuf, indexBase, indexSize, blockCount, mid);
            if (Block.compareKey(indexBuf, Block.keyPosition(entry), Block.keyLength(indexBuf, entry), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The handle of the data block that may hold {@code key}, or null (for tests). */
    BlockHandle blockHandleOf(byte[] key) {
        int block = findBlock(key);
        return block == blockCount ? null : new BlockHandle(blockOffset(block), blockSize(block));
    }

    private long blockOffset(int block) {
        int entry = Block.entryPosition(indexBuf, indexBase, indexSize, blockCount, block);
        return indexBuf.getLong(Block.keyPosition(entry) + Block.keyLength(indexBuf, entry));
    }

    private int blockSize(int block) {
        int entry = Block.entryPosition(indexBuf, indexBase, indexSize, blockCount, block);
        return indexBuf.getInt(Block.keyPosition(entry) + Block.keyLength(indexBuf, entry) + 8);
    }

    private void ensureVerified(int block, ByteBuffer buf, int base, int size, long offset) throws CorruptionException {
        long bit = 1L << block;
        if ((verified[block >>> 6] & bit) == 0) {
            if (codec.isIdentity()) {
                verifyBlock(path, buf, base, size, offset, block);
            } else {
                verifyCompressedBlock(buf, base, size, offset, block);
            }
            verified[block >>> 6] |= bit;
        }
    }

    /** Checks a compressed data block's checksum, which covers its compressed bytes and uncompressed size. */
    private void verifyCompressedBlock(ByteBuffer buf, int base, int size, long offset, int block)
            throws CorruptionException {
        if (size < TableFormat.COMPRESSED_TRAILER || Crc32c.of(buf, base, size - 4) != buf.getInt(base + size - 4)) {
            throw new CorruptionException(path, offset, blockName(block) + " checksum mismatch (" + codec + ")");
        }
        int uncompressed = buf.getInt(base + size - TableFormat.COMPRESSED_TRAILER);
        if (uncompressed < TableFormat.BLOCK_TRAILER || uncompressed > TableFormat.MAX_BLOCK_SIZE) {
            throw new CorruptionException(path, offset, blockName(block) + " has an impossible uncompressed size "
                    + uncompressed);
        }
    }

    /**
     * The data block stored compressed at {@code [base, base + size)}, decompressed into a heap buffer.
     * REQUIRES: its checksum verified ({@link #ensureVerified}).
     */
    private ByteBuffer decompress(int block, ByteBuffer buf, int base, int size, long offset) throws CorruptionException {
        int uncompressed = buf.getInt(base + size - TableFormat.COMPRESSED_TRAILER);
        byte[] out = new byte[uncompressed];
        try {
            codec.decompress(buf, base, size - TableFormat.COMPRESSED_TRAILER, out);
        } catch (IllegalStateException e) {
            throw new CorruptionException(path, offset, blockName(block) + " does not decompress ("
                    + e.getMessage() + ")");
        }
        ByteBuffer plain = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        int count = plain.getInt(uncompressed - TableFormat.BLOCK_TRAILER);
        if (count < 0 || 4L * count + TableFormat.BLOCK_TRAILER > uncompressed) {
            throw new CorruptionException(path, offset, blockName(block) + " has an impossible entry count " + count);
        }
        return plain;
    }

    /** Checks a block's checksum and entry count; {@code block} is its number, or -1 for the index. */
    private static void verifyBlock(Path path, ByteBuffer buf, int base, int size, long offset, int block)
            throws CorruptionException {
        if (size < TableFormat.BLOCK_TRAILER || Crc32c.of(buf, base, size - 4) != buf.getInt(base + size - 4)) {
            throw new CorruptionException(path, offset, blockName(block) + " checksum mismatch");
        }
        int count = buf.getInt(base + size - TableFormat.BLOCK_TRAILER);
        if (count < 0 || 4L * count + TableFormat.BLOCK_TRAILER > size) {
            throw new CorruptionException(path, offset, blockName(block) + " has an impossible entry count " + count);
        }
    }

    private static String blockName(int block) {
        return block < 0 ? "index block" : "data block " + block;
    }

    private static MappedByteBuffer[] map(FileChannel channel, long size, int maxBlockSize, int segmentShift)
            throws IOException {
        long segmentSize = 1L << segmentShift;
        int count = (int) Math.max(1, (size + segmentSize - 1) >>> segmentShift);
        MappedByteBuffer[] segments = new MappedByteBuffer[count];
        for (int i = 0; i < count; i++) {
            long start = i * segmentSize;
            long length = Math.min(size - start, segmentSize + maxBlockSize);
            segments[i] = channel.map(FileChannel.MapMode.READ_ONLY, start, length);
            segments[i].order(ByteOrder.LITTLE_ENDIAN);
        }
        return segments;
    }

    private static ByteBuffer segment(ByteBuffer[] segments, int segmentShift, long offset) {
        return segments[(int) (offset >>> segmentShift)];
    }

    private static int local(int segmentShift, long offset) {
        return (int) (offset & ((1L << segmentShift) - 1));
    }

    private static byte[] readFully(FileChannel channel, Path path, long position, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining()) {
            int n = channel.read(buf, position + buf.position());
            if (n < 0) {
                throw new CorruptionException(path, position, "unexpected end of file");
            }
        }
        return buf.array();
    }

    /** Walks data blocks in order from the block that may hold {@code from}. */
    private final class TableIterator implements CloseableIterator<Entry> {
        private final byte[] to;
        private int block;
        private ByteBuffer buf;
        private int base;
        private int size;
        private int count;
        private int index;
        private Entry next;

        TableIterator(byte[] from, byte[] to) {
            this.to = to;
            try {
                block = from == null ? 0 : findBlock(from);
                if (block < blockCount) {
                    load(block);
                    index = from == null ? 0 : Block.lowerBound(buf, base, size, count, from);
                }
                advance();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void load(int b) throws IOException {
            long offset = blockOffset(b);
            size = blockSize(b);
            buf = segment(segments, segmentShift, offset);
            base = local(segmentShift, offset);
            ensureVerified(b, buf, base, size, offset);
            if (!codec.isIdentity()) {
                buf = decompress(b, buf, base, size, offset);
                base = 0;
                size = buf.capacity();
            }
            count = Block.count(buf, base, size);
            index = 0;
        }

        private void advance() throws IOException {
            while (block < blockCount) {
                if (index < count) {
                    int entry = Block.entryPosition(buf, base, size, count, index++);
                    if (to != null && Block.compareKey(buf, Block.keyPosition(entry), Block.keyLength(buf, entry), to) >= 0) {
                        break;
                    }
                    next = Block.decode(buf, entry);
                    return;
                }
                if (++block < blockCount) {
                    load(block);
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
                throw new java.util.NoSuchElementException();
            }
            try {
                advance();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return result;
        }

        @Override
        public void close() {
            next = null;
            block = blockCount;
        }
    }
}
