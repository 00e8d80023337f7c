package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which memtables get chunks of whole G1 regions, and the sizes their chunks follow. */
class ArenaLayoutTest {
    private static final int MIB = 1 << 20;

    @Test
    void aMemtableThatFillsARegionGetsChunksThatFillOneEach() {
        ArenaLayout layout = ArenaLayout.forMemtableOf(8 * MIB, 4 * MIB);
        int chunk = layout.largeChunkBytes();
        assertTrue(chunk >= 2 * MIB && chunk + 16 <= 4 * MIB,
                "at least half a region, so G1 keeps it in place, and with its header within one: " + chunk);
        // Two large chunks hold all but the last records of an 8 MiB memtable; those go to a small one.
        assertEquals(List.of(chunk, chunk, ArenaLayout.FIRST_SMALL_BYTES, 2 * ArenaLayout.FIRST_SMALL_BYTES),
                sizesOfChunksFor(layout, 8 * MIB + 2 * ArenaLayout.FIRST_SMALL_BYTES));
    }

    @Test
    void aMemtableOfHundredsOfRegionsGetsChunksOfSeveral() {
        ArenaLayout layout = ArenaLayout.forMemtableOf(600L * MIB, MIB);
        assertEquals(3 * MIB - 64, layout.largeChunkBytes());
        assertTrue(600L * MIB / layout.largeChunkBytes() < ArenaLayout.MAX_CHUNKS / 4, "room to overshoot");
        assertEquals(ArenaLayout.MAX_CHUNK_BYTES - 64, ArenaLayout.forMemtableOf(1L << 40, MIB).largeChunkBytes(),
                "never beyond what a pointer's offset reaches");
    }

    @Test
    void smallMemtablesKeepSmallChunksAndOtherCollectorsMegabyteOnes() {
        assertSame(ArenaLayout.SMALL, ArenaLayout.forMemtableOf(MIB, 4 * MIB), "smaller than a region");
        assertEquals(MIB - 64, ArenaLayout.forMemtableOf(8 * MIB, 0).largeChunkBytes(), "not G1");
        assertEquals(ArenaLayout.MAX_CHUNK_BYTES - 64, ArenaLayout.forMemtableOf(64 * MIB, 16 * MIB).largeChunkBytes(),
                "regions beyond what a pointer's offset reaches");
        int max = ArenaLayout.MAX_SMALL_BYTES;
        assertEquals(List.of(16 << 10, 32 << 10, 64 << 10, 128 << 10, max, max),
                sizesOfChunksFor(ArenaLayout.SMALL, 16L * 31 * 1024 + max));
    }

    @Test
    void aServerSizedMemtableInASmallHeapStillFillsRegions() {
        ArenaLayout layout = ArenaLayout.forMemtableOf(8 * MIB, MIB);
        assertEquals(MIB - 64, layout.largeChunkBytes());
        assertEquals(8, sizesOfChunksFor(layout, 8 * MIB - 8 * 64).size());
    }

    @Test
    void offsetsReachTheEndOfTheLargestChunk() {
        assertEquals(ArenaLayout.MAX_CHUNK_BYTES, 4 << ArenaLayout.OFFSET_BITS);
        assertEquals(1024, ArenaLayout.MAX_CHUNKS);
        assertTrue((ArenaLayout.MAX_CHUNKS - 1) << ArenaLayout.OFFSET_BITS > 0, "a pointer is never negative");
    }

    /** The chunks a memtable takes to hold {@code bytes}, filling each before it takes the next. */
    private static List<Integer> sizesOfChunksFor(ArenaLayout layout, long bytes) {
        List<Integer> sizes = new ArrayList<>();
        long used = 0;
        int previous = 0;
        while (used < bytes) {
            previous = layout.nextChunkBytes(previous, used);
            sizes.add(previous);
            used += previous;
        }
        return sizes;
    }
}
