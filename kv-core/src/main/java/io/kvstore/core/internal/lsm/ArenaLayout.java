package io.kvstore.core.internal.lsm;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;

/**
 * How large the chunks of a {@link Memtable}'s arena are.
 *
 * <p>Why large chunks: a memtable lives for seconds to minutes, through several young collections, and
 * G1 copies every array that survives one (through the survivor spaces, until it is old enough to be
 * promoted), so each pause under writes copies megabytes of memtable again. G1 never moves a humongous
 * array (one of at least half a region), and frees an unreachable one in place, usually at the next
 * young collection; so a memtable expected to fill at least one region takes chunks that fill one
 * region each (or a few, for a memtable of hundreds of regions), and its bytes are never copied
 * ({@code docs/TUNING.md}, memtable size). Smaller memtables (tests, small embedded stores) keep small
 * chunks that double from {@link #FIRST_SMALL_BYTES}, so that they do not take a region per switch;
 * under other collectors, large chunks are a megabyte.
 *
 * @param largeChunkBytes the size of a large chunk, {@code 0} for small chunks only
 * @param expectedBytes the bytes the memtable is expected to hold: past the last large chunk it needs,
 *     chunks are small again
 */
record ArenaLayout(int largeChunkBytes, long expectedBytes) {
    /** A pointer's low 21 bits hold the offset in 4-byte units, so a chunk's records lie within 8 MiB. */
    static final int OFFSET_BITS = 21;
    /** The 10 bits above the offset, less the sign bit, name the chunk: 8 GiB of 8 MiB chunks. */
    static final int MAX_CHUNKS = 1 << (31 - OFFSET_BITS);
    static final int MAX_CHUNK_BYTES = 4 << OFFSET_BITS;
    static final int FIRST_SMALL_BYTES = 16 << 10;
    /** Below half of G1's smallest region (1 MiB): a small chunk is never humongous. */
    static final int MAX_SMALL_BYTES = 256 << 10;
    /** More than any array header, so that a chunk and its header fit in whole regions. */
    private static final int HEADER_ROOM = 64;
    /** Small chunks only. */
    static final ArenaLayout SMALL = new ArenaLayout(0, 0);
    /** Without G1, large chunks are made of this many bytes at a time. */
    private static final int OTHER_COLLECTOR_UNIT = 1 << 20;
    private static final int G1_REGION_BYTES = g1RegionBytes();

    /** The layout for a memtable expected to hold {@code expectedBytes} under this JVM's collector. */
    static ArenaLayout forMemtableOf(long expectedBytes) {
        return forMemtableOf(expectedBytes, G1_REGION_BYTES);
    }

    /**
     * The layout for a memtable expected to hold {@code expectedBytes} in a G1 heap of {@code regionBytes}
     * regions ({@code 0}: another collector). Chunks of one region, or of as many as keep a quarter of
     * {@link #MAX_CHUNKS} enough for the memtable, so that one that overshoots its threshold never runs out.
     */
    static ArenaLayout forMemtableOf(long expectedBytes, int regionBytes) {
        int unit = regionBytes == 0 ? OTHER_COLLECTOR_UNIT : Math.min(regionBytes, MAX_CHUNK_BYTES);
        if (expectedBytes < unit - HEADER_ROOM) {
            return SMALL;
        }
        long unitsPerChunk = -Math.floorDiv(-expectedBytes, (long) unit * (MAX_CHUNKS / 4)); // rounded up
        long chunkBytes = Math.min(MAX_CHUNK_BYTES, unitsPerChunk * unit) - HEADER_ROOM;
        return new ArenaLayout((int) chunkBytes, expectedBytes);
    }

    /**
     * The size of the next chunk of a memtable that holds {@code usedBytes} in chunks the last of which has
     * {@code previousBytes} ({@code 0}: none yet): large while more than half of one is still expected to
     * fill, otherwise small ones doubling from {@link #FIRST_SMALL_BYTES} to {@link #MAX_SMALL_BYTES}.
     */
    int nextChunkBytes(int previousBytes, long usedBytes) {
        if (largeChunkBytes > 0 && expectedBytes - usedBytes > largeChunkBytes / 2) {
            return largeChunkBytes;
        }
        return previousBytes == 0 || previousBytes > MAX_SMALL_BYTES ? FIRST_SMALL_BYTES
                : Math.min(MAX_SMALL_BYTES, previousBytes * 2);
    }

    /** G1's region size in bytes, or 0 when G1 is not the collector or the JVM does not say. */
    private static int g1RegionBytes() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (hotspot == null || !Boolean.parseBoolean(hotspot.getVMOption("UseG1GC").getValue())) {
                return 0;
            }
            long region = Long.parseLong(hotspot.getVMOption("G1HeapRegionSize").getValue());
            return region > Integer.MAX_VALUE ? 0 : (int) region;
        } catch (RuntimeException | LinkageError e) {
            return 0;
        }
    }
}
