package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compaction drops a tombstone only once it is older than {@link DaoOptions#tombstoneGrace()}. */
class TombstoneGraceTest {
    private static final long START_MILLIS = 1_700_000_000_000L;
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(START_MILLIS);

    private DaoOptions.Builder options() {
        return DaoOptions.builder(dir).clock(clock::get);
    }

    /** A hybrid-clock timestamp at {@code millis}. */
    private static long hybrid(long millis) {
        return millis << 16;
    }

    @Test
    void aTombstoneSurvivesCompactionUntilItsGraceIsOver() throws IOException {
        try (LsmDao dao = LsmDao.open(options().tombstoneGrace(Duration.ofDays(10)).build())) {
            dao.upsert(Entry.value(KEY, new byte[] {1}, hybrid(START_MILLIS - 5)));
            dao.upsert(Entry.tombstone(KEY, hybrid(START_MILLIS - 1)));
            dao.compact();
            assertEquals(Entry.tombstone(KEY, hybrid(START_MILLIS - 1)), dao.get(KEY), "within its grace");

            clock.set(START_MILLIS + Duration.ofDays(10).toMillis() - 2);
            dao.compact();
            assertTrue(dao.get(KEY).isTombstone(), "a millisecond before its grace is over");

            clock.set(START_MILLIS + Duration.ofDays(10).toMillis());
            dao.compact();
            assertNull(dao.get(KEY), "dropped once its grace is over");
        }
    }

    @Test
    void aZeroGraceDropsTombstonesAsSoonAsItIsSafe() throws IOException {
        try (LsmDao dao = LsmDao.open(options().tombstoneGrace(Duration.ZERO).build())) {
            dao.upsert(Entry.value(KEY, new byte[] {1}, hybrid(START_MILLIS - 5)));
            dao.upsert(Entry.tombstone(KEY, hybrid(START_MILLIS - 1)));
            dao.compact();
            assertNull(dao.get(KEY));
            assertEquals(0, dao.liveTables().length);
        }
    }

    @Test
    void timestampsMapToWallTimeAsConfigured() throws IOException {
        DaoOptions micros = options().timestampToMillis(DaoOptions.MICROSECOND_TIMESTAMPS)
                .tombstoneGrace(Duration.ofHours(1)).build();
        try (LsmDao dao = LsmDao.open(micros)) {
            dao.upsert(Entry.tombstone(KEY, (START_MILLIS - 1) * 1000));
            dao.upsert(Entry.tombstone("old".getBytes(StandardCharsets.UTF_8), (START_MILLIS - 3_600_001) * 1000));
            dao.compact();
            assertTrue(dao.get(KEY).isTombstone(), "a millisecond old in microseconds");
            assertNull(dao.get("old".getBytes(StandardCharsets.UTF_8)), "an hour and a millisecond old");
        }
    }

    @Test
    void aNegativeGraceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> options().tombstoneGrace(Duration.ofMillis(-1)).build());
        assertTrue(e.getMessage().contains("tombstoneGrace"), e.getMessage());
    }

    @Test
    void hybridTimestampsCarryMillisecondsAbove16Bits() {
        assertEquals(START_MILLIS, DaoOptions.HYBRID_TIMESTAMPS.applyAsLong(hybrid(START_MILLIS) | 0xFFFF));
        assertEquals(START_MILLIS, DaoOptions.MICROSECOND_TIMESTAMPS.applyAsLong(START_MILLIS * 1000 + 999));
        assertEquals(-1, DaoOptions.MICROSECOND_TIMESTAMPS.applyAsLong(-1));
    }
}
