package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Level sizes follow the data: the last level holds most of it, level 0 compacts into the base level. */
class LevelTargetsTest {
    private static final long MIB = 1 << 20;
    private static final long BASE = 256 * MIB;

    /** Bytes per level 0..6 with {@code last} bytes at level 6 and {@code upper} at level {@code upperLevel}. */
    private static long[] levels(long last, int upperLevel, long upper) {
        long[] bytes = new long[LevelTargets.LAST_LEVEL + 1];
        bytes[LevelTargets.LAST_LEVEL] = last;
        if (upperLevel > 0) {
            bytes[upperLevel] += upper;
        }
        return bytes;
    }

    @Test
    void anEmptyStoreCompactsLevelZeroStraightIntoTheLastLevel() {
        LevelTargets targets = LevelTargets.of(new long[1], BASE);
        assertEquals(LevelTargets.LAST_LEVEL, targets.baseLevel());
        assertEquals(LevelTargets.LAST_LEVEL, targets.lastLevel());
    }

    @Test
    void whileTheLastLevelIsUnderTheBaseSizeItIsTheBaseLevel() {
        LevelTargets targets = LevelTargets.of(levels(200 * MIB, 0, 0), BASE);
        assertEquals(LevelTargets.LAST_LEVEL, targets.baseLevel());
    }

    @Test
    void asTheDataGrowsTheBaseLevelMovesUpAndEachLevelIsATenthOfTheNext() {
        LevelTargets targets = LevelTargets.of(levels(100_000 * MIB, 0, 0), BASE);
        // 100,000 MiB at level 6: 10,000 at level 5, 1,000 at 4, 100 at 3 (under 256 MiB: the base level).
        assertEquals(3, targets.baseLevel());
        // The base level gets its share, not the most a base level may hold: with 256 MiB there it could
        // hold more old versions than its tenth of the level below.
        assertEquals(100 * MIB, targets.maxBytes()[3]);
        assertEquals(1_000 * MIB, targets.maxBytes()[4]);
        assertEquals(10_000 * MIB, targets.maxBytes()[5]);
        assertEquals(0, targets.maxBytes()[2], "levels above the base level stay empty");
    }

    @Test
    void theLevelsAboveTheLastHoldAboutANinthOfItWhenTheyAreFull() {
        long last = 50_000 * MIB;
        LevelTargets targets = LevelTargets.of(levels(last, 0, 0), BASE);
        long upper = 0;
        for (int level = targets.baseLevel(); level < targets.lastLevel(); level++) {
            upper += targets.maxBytes()[level];
        }
        assertTrue(upper <= last / 8, "upper levels " + upper + " for " + last + " at the last level");
    }

    @Test
    void theBaseLevelOfAStoreAFewTimesItsBaseSizeTakesItsShareNotTheBaseSize() {
        long base = 64 * MIB;
        long last = 138_000_000;
        LevelTargets targets = LevelTargets.of(levels(last, 0, 0), base);
        assertEquals(LevelTargets.LAST_LEVEL - 1, targets.baseLevel());
        assertEquals(last / 10, targets.maxBytes()[LevelTargets.LAST_LEVEL - 1], "a tenth of the last level, not 64 MiB");
    }

    @Test
    void theBaseLevelTargetStaysWithinATenthOfTheBaseSizeAndTheBaseSizeAsTheStoreGrows() {
        long base = 64 * MIB;
        for (long last = 2 * base; last < 1_000_000 * MIB; last = last * 3 / 2) {
            LevelTargets targets = LevelTargets.of(levels(last, 0, 0), base);
            long baseTarget = targets.maxBytes()[targets.baseLevel()];
            assertTrue(baseTarget > base / 10 && baseTarget <= base, "base target " + baseTarget + " for " + last);
            for (int level = targets.baseLevel(); level < targets.lastLevel() - 1; level++) {
                assertEquals(targets.maxBytes()[level] * 10.0, targets.maxBytes()[level + 1], 20.0);
            }
            assertEquals(last / 10.0, targets.maxBytes()[targets.lastLevel() - 1], 10.0);
        }
    }

    @Test
    void aStoreWithItsLargestLevelAboveTheLastIsSizedAsIfThatLevelWereTheLast() {
        // A store whose tables were placed by fixed level sizes: 2,000 MiB at level 3, 200 at level 2.
        long[] bytes = new long[4];
        bytes[2] = 200 * MIB;
        bytes[3] = 2_000 * MIB;
        LevelTargets targets = LevelTargets.of(bytes, BASE);
        assertEquals(LevelTargets.LAST_LEVEL, targets.lastLevel());
        assertEquals(2, targets.baseLevel(), "level 0 never compacts below data it is newer than");
        assertTrue(targets.maxBytes()[3] >= BASE);
    }

    @Test
    void aStoreDeeperThanTheUsualLastLevelKeepsItsDeepestLevelAsTheLast() {
        long[] bytes = new long[LevelTargets.LAST_LEVEL + 3];
        bytes[bytes.length - 1] = 10 * MIB;
        assertEquals(bytes.length - 1, LevelTargets.of(bytes, BASE).lastLevel());
    }
}
