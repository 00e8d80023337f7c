package io.kvstore.core;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options that default from other options, and their checks. */
class DaoOptionsTest {
    private static final Path DIR = Path.of("unused");

    @Test
    void byDefaultTheBaseLevelHoldsSixteenMemtables() {
        assertEquals(16 * DaoOptions.DEFAULT_FLUSH_THRESHOLD_BYTES, DaoOptions.defaults(DIR).levelBaseBytes());
        DaoOptions small = DaoOptions.builder(DIR).flushThresholdBytes(8 << 20).build();
        assertEquals(128L << 20, small.levelBaseBytes());
        assertEquals(256L << 20, small.toBuilder().flushThresholdBytes(16 << 20).build().levelBaseBytes(),
                "a derived variant follows its own memtable size");
    }

    @Test
    void theDefaultBaseLevelIsNeverSmallerThanOneTable() {
        DaoOptions tiny = DaoOptions.builder(DIR).flushThresholdBytes(4096).build();
        assertEquals(DaoOptions.DEFAULT_TARGET_TABLE_BYTES, tiny.levelBaseBytes());
    }

    @Test
    void aBaseLevelSetExplicitlyIsKeptAndMustHoldATable() {
        assertEquals(1L << 30, DaoOptions.builder(DIR).levelBaseBytes(1L << 30).build().levelBaseBytes());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(DIR).targetTableBytes(1 << 20).levelBaseBytes(1 << 19).build());
        assertTrue(refused.getMessage().contains("levelBaseBytes must be 0 (the default: 16 memtables) or >= "
                + "targetTableBytes (1048576), got 524288"), refused.getMessage());
    }

    @Test
    void theFlushThresholdSpreadIsAFractionUpToAHalf() {
        assertEquals(0, DaoOptions.defaults(DIR).flushThresholdSpread());
        assertEquals(0.5, DaoOptions.builder(DIR).flushThresholdSpread(0.5).build().toBuilder().build().flushThresholdSpread());
        for (double bad : new double[] {-0.1, 0.51, 1, Double.NaN}) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> DaoOptions.builder(DIR).flushThresholdSpread(bad).build());
            assertTrue(refused.getMessage().contains("flushThresholdSpread must be in [0, 0.5], got " + bad),
                    refused.getMessage());
        }
    }
}
