package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.DaoStats;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import io.kvstore.core.hash.XxHash64;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;

/**
 * An open, immutable SSTable read through memory mappings ({@link MappedFile}): the block index, the
 * Bloom filter and the data blocks stay in the page cache, not on the heap, so heap use does not grow
 * with the data.
 *
 * <p>Each data block's CRC32C is checked the first time it is read after opening; index, filter and
 * meta are checked at open. Compressed blocks are decompressed on the heap and kept in the store's
 * {@link BlockCache}; a block of a compressed table stored as it is (compression saved too little) is
 * read in place, as every block of an uncompressed table is. Reads are thread-safe. The table is
 * reference counted: the live set holds one reference and every range snapshot one more; the last
 * release drops the table's cached blocks and, once the table is marked obsolete, deletes the file.
 * Mappings are never unmapped explicitly (a reader racing a compaction may still touch them); the
 * garbage collector releases them.
 */
public final class SsTable {
    /** Largest meta block {@link #salvageKeyRange} reads: two keys of the largest size the store takes, and more. */
    private static final int MAX_SALVAGED_META = 40 << 20;
    private final Storage storage;
    private final Path path;
    private final long fileNumber;
    private final long fileSize;
    private final MappedFile file;
    private final long entryCount;
    private final long minTimestamp;
    private final long maxTimestamp;
    private final byte[] firstKey;
    private final byte[] lastKey;
    private final BloomFilter bloom;
    /** How data blocks are stored; the identity codec lets reads use the mapping in place. */
    private final BlockCodec codec;
    private final int formatVersion;
    private final BlockIndex index;
    /** This table's decompressed blocks in the store's block cache (caches nothing if uncompressed). */
    private final BlockCache.Table cached;
    /** One bit per data block: its checksum has been verified (racy updates only cost a re-check). */
    private final long[] verified;
    /**
     * One bit per data block of a compressed table: verified, and found stored as it is, so read in place
     * without a cache lookup (a lost racy update only costs a lookup).
     */
    private final long[] storedAsIs;
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile boolean obsolete;
    /** Every page was in memory at the last {@link #checkResidency()}. */
    private volatile boolean resident;

    private SsTable(Storage storage, Path path, long fileNumber, long fileSize, MappedFile file, TableMeta meta,
                    BlockCodec codec, int formatVersion, BloomFilter bloom, BlockIndex index, BlockCache blocks) {
        this.storage = storage;
        this.path = path;
        this.fileNumber = fileNumber;
        this.fileSize = fileSize;
        this.file = file;
        this.entryCount = meta.entryCount();
        this.minTimestamp = meta.minTimestamp();
        this.maxTimestamp = meta.maxTimestamp();
        this.firstKey = meta.firstKey();
        this.lastKey = meta.lastKey();
        this.codec = codec;
        this.formatVersion = formatVersion;
        this.bloom = bloom;
        this.index = index;
        this.cached = codec.isIdentity() ? BlockCache.Table.NONE : blocks.newTable(index.count());
        this.verified = new long[(index.count() + 63) >>> 6];
        this.storedAsIs = new long[verified.length];
    }

    /** Opens and validates the table at {@code path}; {@link CorruptionException} names what is wrong. */
    public static SsTable open(Path path, long fileNumber) throws IOException {
        return open(path, fileNumber, BlockCache.disabled());
    }

    /** {@link #open(Storage, Path, long, BlockCache)} on the real file system. */
    public static SsTable open(Path path, long fileNumber, BlockCache blocks) throws IOException {
        return open(Storage.local(), path, fileNumber, blocks);
    }

    /**
     * Opens and validates the table at {@code path} of {@code storage} (which also deletes it once it is
     * obsolete and released), keeping its decompressed blocks in {@code blocks};
     * {@link CorruptionException} names what is wrong.
     */
    public static SsTable open(Storage storage, Path path, long fileNumber, BlockCache blocks) throws IOException {
        return open(storage, path, fileNumber, TableFormat.SEGMENT_SHIFT, blocks);
    }

    /** Opens with mapping windows of {@code 2^segmentShift} bytes (small windows let tests cross them). */
    static SsTable open(Path path, long fileNumber, int segmentShift) throws IOException {
        return open(Storage.local(), path, fileNumber, segmentShift, BlockCache.disabled());
    }

    private static SsTable open(Storage storage, Path path, long fileNumber, int segmentShift, BlockCache blocks)
            throws IOException {
        try (FileChannel channel = storage.open(path, StandardOpenOption.READ)) {
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

            MappedFile file = MappedFile.map(channel, size, maxBlockSize, segmentShift);
            ByteBuffer indexBuf = file.window(indexOffset);
            int indexBase = file.indexIn(indexOffset);
            verifyBlock(path, indexBuf, indexBase, indexSize, indexOffset, -1);
            BloomFilter bloom = null;
            if (bloomSize > 0) {
                ByteBuffer bloomBuf = file.window(bloomOffset);
                int bloomBase = file.indexIn(bloomOffset);
                if (bloomLines * (long) BloomFilter.LINE_BYTES != bloomSize
                        || Crc32c.of(bloomBuf, bloomBase, bloomSize) != bloomCrc) {
                    throw new CorruptionException(path, bloomOffset, "Bloom filter checksum mismatch");
                }
                bloom = new BloomFilter(bloomBuf, bloomBase, bloomLines, bloomProbes);
            }
            long dataEnd = bloomSize > 0 ? Math.min(bloomOffset, indexOffset) : indexOffset;
            BlockIndex index = BlockIndex.open(path, indexBuf, indexBase, indexSize, indexOffset, dataEnd, maxBlockSize);
            return new SsTable(storage, path, fileNumber, size, file, meta, codec, footer.version(), bloom, index,
                    Objects.requireNonNull(blocks, "blocks"));
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

    /**
     * {@link #get(byte[], long)} that counts in {@code stats} (if not null) a key its Bloom filter ruled out.
     * A page of the mapping the device cannot read (the JVM's {@link InternalError} for the SIGBUS), when
     * the JVM raises it within the read (it may raise it later), is a {@link CorruptionException} naming
     * this file, as a failed checksum is.
     */
    public Entry get(byte[] key, long hash, DaoStats stats) throws IOException {
        try {
            return find(key, hash, stats);
        } catch (InternalError e) {
            throw readFault(e);
        }
    }

    private Entry find(byte[] key, long hash, DaoStats stats) throws IOException {
        if (Bytes.compare(key, firstKey) < 0 || Bytes.compare(key, lastKey) > 0) {
            return null;
        }
        if (bloom != null && !bloom.mightContain(hash)) {
            if (stats != null) {
                stats.bloomRuledOut();
            }
            return null;
        }
        int block = index.find(key);
        if (block == index.count()) {
            return null;
        }
        // The cursor never leaves this method, so escape analysis can keep it off the heap.
        BlockCursor cursor = new BlockCursor();
        load(block, cursor, true);
        ByteBuffer buf = cursor.buf;
        int i = Block.lowerBound(buf, cursor.base, cursor.size, cursor.count, key);
        if (i == cursor.count) {
            return null;
        }
        int entry = Block.entryPosition(buf, cursor.base, cursor.size, cursor.count, i);
        int keyLength = Block.keyLength(buf, entry);
        if (Block.compareKey(buf, Block.keyPosition(entry), keyLength, key) != 0) {
            return null;
        }
        return Block.decodeWithKey(buf, entry, key.clone());
    }

    /**
     * The damage an {@link InternalError} of a read of this table's mapping stands for: the JVM's word
     * for a page the device could not read (an I/O error) or that is gone (the file was truncated).
     */
    CorruptionException readFault(InternalError e) {
        CorruptionException fault = new CorruptionException(path, -1, "I/O error reading the table's mapping ("
                + e.getMessage() + ")");
        fault.initCause(e);
        return fault;
    }

    /**
     * The first and last keys of the table at {@code path} of {@code storage}, from its meta block found
     * through the footer without the footer's own checks, or null if that block cannot be found or fails
     * its checksum: a table whose footer, index or filter is damaged can still tell which keys it held.
     */
    public static byte[][] salvageKeyRange(Storage storage, Path path) {
        try (FileChannel channel = storage.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < TableFormat.FOOTER_SIZE) {
                return null;
            }
            byte[] footer = readFully(channel, path, size - TableFormat.FOOTER_SIZE, TableFormat.FOOTER_SIZE);
            BlockHandle meta = BlockHandle.decode(footer, 0);
            if (meta.offset() < 0 || meta.size() <= 0 || meta.size() > MAX_SALVAGED_META
                    || meta.offset() > size - TableFormat.FOOTER_SIZE - meta.size()) {
                return null;
            }
            byte[] bytes = readFully(channel, path, meta.offset(), meta.size());
            // The footer's version may be the damaged field: the meta block's checksum settles which layout fits.
            for (int version : new int[] {Coding.getInt(footer, 40), TableFormat.V3, TableFormat.V1}) {
                if (version < TableFormat.V1 || version > TableFormat.V3) {
                    continue;
                }
                try {
                    TableMeta decoded = TableMeta.decode(path, version, bytes, meta.offset());
                    return new byte[][] {decoded.firstKey(), decoded.lastKey()};
                } catch (CorruptionException e) {
                    // try the other layout
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
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
        boolean all = file.isLoaded();
        resident = all;
        return all;
    }

    /** Entries with keys in {@code [from, to)} in key order; {@code null} bounds are open. */
    public CloseableIterator<Entry> iterator(byte[] from, byte[] to) {
        return new TableIterator(this, from, to, true);
    }

    /**
     * Entries with keys in {@code [from, to)} in key order for a scan or a cleanup, which read each
     * block once: blocks come from the block cache when it holds them but are not added to it (those
     * it decompresses go into one buffer, reused). Caching them would push out the ones readers come
     * back to, and fill the heap with blocks that are promoted and then dropped, which lengthens every
     * young collection.
     */
    public CloseableIterator<Entry> passingIterator(byte[] from, byte[] to) {
        return new TableIterator(this, from, to, false);
    }

    /**
     * A cursor over all the table's entries for a compaction, which reads them in place ({@link TableCursor});
     * every key of the merge begins with the same {@code shared} bytes, which its comparisons skip.
     */
    public TableCursor cursor(int shared) {
        return new TableCursor(this, shared);
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

    /** Whether the table's key range meets {@code [from, to)}; {@code null} bounds are open. */
    public boolean overlaps(byte[] from, byte[] to) {
        return (from == null || Bytes.compare(lastKey, from) >= 0) && (to == null || Bytes.compare(firstKey, to) < 0);
    }

    /** Whether {@code key} lies within the table's key range (the table may hold it). */
    public boolean spans(byte[] key) {
        return Bytes.compare(key, firstKey) >= 0 && Bytes.compare(key, lastKey) <= 0;
    }

    /** Whether every key of the table is below {@code key}. */
    public boolean endsBefore(byte[] key) {
        return Bytes.compare(lastKey, key) < 0;
    }

    /** Whether every key of the table is below every key of {@code other}. */
    public boolean precedes(SsTable other) {
        return endsBefore(other.firstKey);
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

    /** Drops a reference; the last one drops the cached blocks and deletes the file if the table is obsolete. */
    public void release() throws IOException {
        int r = references.decrementAndGet();
        if (r == 0) {
            cached.release();
            if (obsolete) {
                storage.delete(path);
            }
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

    /** The handle of the data block that may hold {@code key}, or null (for tests). */
    BlockHandle blockHandleOf(byte[] key) {
        int block = index.find(key);
        return block == index.count() ? null : new BlockHandle(index.offset(block), index.size(block));
    }

    /** The block index, for {@link TableIterator}. */
    BlockIndex index() {
        return index;
    }

    /**
     * Points {@code cursor} at data block {@code block}: in the mapping, or decompressed on the heap
     * (from the block cache, or into it if {@code fillCache}, or else into the cursor's own buffer,
     * overwriting the block it pointed at: a reader passing the cache by copies what it keeps); its
     * checksum verified on the first read since opening.
     */
    void load(int block, BlockCursor cursor, boolean fillCache) throws CorruptionException {
        long offset = index.offset(block);
        int size = index.size(block);
        if (codec.isIdentity()) {
            ByteBuffer buf = file.window(offset);
            int base = file.indexIn(offset);
            ensureVerified(block, buf, base, size, offset);
            cursor.buf = buf;
            cursor.base = base;
            cursor.size = size;
        } else if ((storedAsIs[block >>> 6] & 1L << block) != 0) {
            // Verified and found stored as it is before: in place, with no cache lookup.
            cursor.buf = file.window(offset);
            cursor.base = file.indexIn(offset);
            cursor.size = size - TableFormat.COMPRESSED_TRAILER;
        } else {
            ByteBuffer hit = cached.get(block);
            if (hit != null) {
                cursor.buf = hit;
                cursor.base = 0;
                cursor.size = hit.capacity();
            } else {
                loadUncached(block, cursor, offset, size, fillCache);
            }
        }
        cursor.count = Block.count(cursor.buf, cursor.base, cursor.size);
    }

    /**
     * {@link #load} of a block of a compressed table that is not in the cache: verified if it was not
     * yet, then read in place if stored as it is, or else decompressed. Apart from {@link #load} so
     * that the frequent paths stay small enough for the compiler to inline.
     */
    private void loadUncached(int block, BlockCursor cursor, long offset, int size, boolean fillCache)
            throws CorruptionException {
        ByteBuffer buf = file.window(offset);
        int base = file.indexIn(offset);
        ensureVerified(block, buf, base, size, offset);
        int uncompressed = buf.getInt(base + size - TableFormat.COMPRESSED_TRAILER);
        if ((uncompressed & TableFormat.STORED) != 0) {
            // Stored as it is: read in place, as a table without codec is, and never cached.
            cursor.buf = buf;
            cursor.base = base;
            cursor.size = size - TableFormat.COMPRESSED_TRAILER;
            return;
        }
        cached.missed();
        ByteBuffer plain = fillCache
                ? ByteBuffer.wrap(new byte[uncompressed]).order(ByteOrder.LITTLE_ENDIAN)
                : cursor.scratch(uncompressed);
        decompress(block, buf, base, size, offset, plain, uncompressed);
        if (fillCache) {
            cached.put(block, plain); // after the release (a point read holds none), nothing is kept
        }
        cursor.buf = plain;
        cursor.base = 0;
        cursor.size = uncompressed;
    }

    private void ensureVerified(int block, ByteBuffer buf, int base, int size, long offset) throws CorruptionException {
        long bit = 1L << block;
        if ((verified[block >>> 6] & bit) == 0) {
            if (codec.isIdentity()) {
                verifyBlock(path, buf, base, size, offset, block);
            } else if (verifyCompressedBlock(path, codec, formatVersion, buf, base, size, offset, block)) {
                storedAsIs[block >>> 6] |= bit;
            }
            verified[block >>> 6] |= bit;
        }
    }

    /**
     * Checks a compressed data block's checksum, which covers its compressed bytes and uncompressed size;
     * a block stored as it is gets the checks of an uncompressed one as well. Returns whether it is stored
     * as it is.
     */
    private static boolean verifyCompressedBlock(Path path, BlockCodec codec, int formatVersion, ByteBuffer buf,
                                                 int base, int size, long offset, int block)
            throws CorruptionException {
        if (size < TableFormat.COMPRESSED_TRAILER || Crc32c.of(buf, base, size - 4) != buf.getInt(base + size - 4)) {
            throw new CorruptionException(path, offset, blockName(block) + " checksum mismatch (" + codec + ")");
        }
        int uncompressed = buf.getInt(base + size - TableFormat.COMPRESSED_TRAILER);
        if ((uncompressed & TableFormat.STORED) != 0) {
            int stored = uncompressed & ~TableFormat.STORED;
            if (formatVersion < TableFormat.V3 || stored != size - TableFormat.COMPRESSED_TRAILER) {
                throw new CorruptionException(path, offset, blockName(block)
                        + " is marked stored as it is, with a size of " + stored + " in " + size
                        + " bytes of a version " + formatVersion + " table");
            }
            verifyBlock(path, buf, base, stored, offset, block);
            return true;
        }
        if (uncompressed < TableFormat.BLOCK_TRAILER || uncompressed > TableFormat.MAX_BLOCK_SIZE) {
            throw new CorruptionException(path, offset, blockName(block) + " has an impossible uncompressed size "
                    + uncompressed);
        }
        return false;
    }

    /**
     * Decompresses the data block stored compressed at {@code [base, base + size)} into
     * {@code plain[0, uncompressed)}. REQUIRES: its checksum verified ({@link #ensureVerified}).
     */
    private void decompress(int block, ByteBuffer buf, int base, int size, long offset, ByteBuffer plain,
                            int uncompressed) throws CorruptionException {
        try {
            codec.decompress(buf, base, size - TableFormat.COMPRESSED_TRAILER, plain.array(), uncompressed);
        } catch (IllegalStateException e) {
            throw new CorruptionException(path, offset, blockName(block) + " does not decompress ("
                    + e.getMessage() + ")");
        }
        int count = plain.getInt(uncompressed - TableFormat.BLOCK_TRAILER);
        if (count < 0 || 4L * count + TableFormat.BLOCK_TRAILER > uncompressed) {
            throw new CorruptionException(path, offset, blockName(block) + " has an impossible entry count " + count);
        }
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

    /**
     * Reads {@code length} bytes at {@code position}; the device failing the read (an I/O error of the
     * open file) is damage to the table, a {@link CorruptionException} caused by it.
     */
    private static byte[] readFully(FileChannel channel, Path path, long position, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining()) {
            int n;
            try {
                n = channel.read(buf, position + buf.position());
            } catch (ClosedChannelException e) {
                throw e;
            } catch (IOException e) {
                CorruptionException fault = new CorruptionException(path, position + buf.position(),
                        "I/O error reading " + length + " bytes (" + e.getMessage() + ")");
                fault.initCause(e);
                throw fault;
            }
            if (n < 0) {
                throw new CorruptionException(path, position, "unexpected end of file");
            }
        }
        return buf.array();
    }

    /**
     * Reads the table at {@code path} of {@code storage} through a channel of its own, not through the
     * mapping of an open table, and checks every checksum it holds: footer, meta block, index, filter
     * and each data block, so that damage in blocks no read has touched, or that happened since the table
     * was opened, is found. {@code pace} is told the bytes of each block before it is read and stops the
     * check by returning false. Returns the bytes checked, or -1 if stopped. Damage, and a read the
     * device fails, is a {@link CorruptionException}.
     */
    public static long scrub(Storage storage, Path path, LongPredicate pace) throws IOException {
        try (FileChannel channel = storage.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < TableFormat.FOOTER_SIZE) {
                throw new CorruptionException(path, 0, "file of " + size + " bytes is too short for an SSTable");
            }
            long footerOffset = size - TableFormat.FOOTER_SIZE;
            if (!pace.test(TableFormat.FOOTER_SIZE)) {
                return -1;
            }
            Footer footer = Footer.decode(path, readFully(channel, path, footerOffset, TableFormat.FOOTER_SIZE),
                    footerOffset);
            BlockHandle metaHandle = footer.meta();
            if (!pace.test(metaHandle.size())) {
                return -1;
            }
            TableMeta meta = TableMeta.decode(path, footer.version(),
                    readFully(channel, path, metaHandle.offset(), metaHandle.size()), metaHandle.offset());
            BlockCodec codec = BlockCodec.byId(meta.codecId(), path, metaHandle.offset());
            BlockHandle indexHandle = footer.index();
            if (!pace.test(indexHandle.size())) {
                return -1;
            }
            ByteBuffer indexBuf = ByteBuffer.wrap(readFully(channel, path, indexHandle.offset(), indexHandle.size()))
                    .order(ByteOrder.LITTLE_ENDIAN);
            verifyBlock(path, indexBuf, 0, indexHandle.size(), indexHandle.offset(), -1);
            BlockHandle bloom = footer.bloom();
            if (bloom.size() > 0) {
                if (!pace.test(bloom.size())) {
                    return -1;
                }
                byte[] filter = readFully(channel, path, bloom.offset(), bloom.size());
                if (meta.bloomLines() * (long) BloomFilter.LINE_BYTES != bloom.size()
                        || Crc32c.of(filter, 0, filter.length) != meta.bloomCrc()) {
                    throw new CorruptionException(path, bloom.offset(), "Bloom filter checksum mismatch");
                }
            }
            long dataEnd = bloom.size() > 0 ? Math.min(bloom.offset(), indexHandle.offset()) : indexHandle.offset();
            BlockIndex index = BlockIndex.open(path, indexBuf, 0, indexHandle.size(), indexHandle.offset(), dataEnd,
                    footer.maxBlockSize());
            for (int block = 0; block < index.count(); block++) {
                long offset = index.offset(block);
                int blockSize = index.size(block);
                if (!pace.test(blockSize)) {
                    return -1;
                }
                ByteBuffer buf = ByteBuffer.wrap(readFully(channel, path, offset, blockSize))
                        .order(ByteOrder.LITTLE_ENDIAN);
                if (codec.isIdentity()) {
                    verifyBlock(path, buf, 0, blockSize, offset, block);
                } else {
                    verifyCompressedBlock(path, codec, footer.version(), buf, 0, blockSize, offset, block);
                }
            }
            return size;
        }
    }
}
