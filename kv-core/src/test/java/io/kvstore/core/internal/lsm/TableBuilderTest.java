package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Splitting a compaction's output into tables, dropping tombstones, and giving up when the store closes. */
class TableBuilderTest {
    private static final long NOW = 1_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong numbers = new AtomicLong(1);

    @Test
    void splitsAtTheTargetSizeAndKeepsEveryEntryInOrder() throws IOException {
        int count = 5_000;
        TableBuilder.BuiltTables built = buildSplit(values(count), 32 << 10, ts -> false, () -> false);

        assertTrue(built.tables().length > 3, "expected several tables, got " + built.tables().length);
        List<byte[]> keys = new ArrayList<>();
        for (SsTable table : built.tables()) {
            assertTrue(table.fileSize() < (32 << 10) + (16 << 10), table + " overshoots its target by more than a block");
            try (CloseableIterator<Entry> it = table.iterator(null, null)) {
                it.forEachRemaining(e -> keys.add(e.key()));
            }
        }
        assertEquals(count, keys.size());
        for (int i = 0; i < count; i++) {
            assertArrayEquals(key(i), keys.get(i), "key " + i);
        }
        VersionSet.release(built.tables());
    }

    @Test
    void dropsTheTombstonesThePredicateAcceptsAndReportsTheNewest() throws IOException {
        Iterator<Entry> entries = IntStream.range(0, 1_000)
                .mapToObj(i -> i % 2 == 0 ? Entry.tombstone(key(i), i) : Entry.value(key(i), key(i), i))
                .iterator();
        TableBuilder.BuiltTables built = buildSplit(entries, 1 << 20, ts -> ts < 500, () -> false);

        assertEquals(1, built.tables().length);
        SsTable table = built.tables()[0];
        assertEquals(500 + 250, table.entryCount(), "the odd values and the tombstones from 500 on");
        assertEquals(498, built.newestDroppedTombstone());
        VersionSet.release(built.tables());
    }

    @Test
    void aRunOfDroppedTombstonesStillNoticesTheStoreClosing() throws IOException {
        AtomicInteger polls = new AtomicInteger();
        Iterator<Entry> tombstones = IntStream.range(0, 100_000).mapToObj(i -> Entry.tombstone(key(i), i)).iterator();

        CancellationException e = assertThrows(CancellationException.class,
                () -> buildSplit(tombstones, 1 << 20, ts -> true, () -> polls.incrementAndGet() > 2));

        assertEquals(3, polls.get(), "gave up at the first poll after the close");
        assertTrue(tombstones.hasNext(), "stopped before the end of its input");
        assertTrue(e.getMessage().contains("store closing"), e.getMessage());
        assertEquals(List.of(), tableFiles());
    }

    @Test
    void aCloseInTheMiddleOfATableDeletesEveryTableWrittenSoFar() throws IOException {
        AtomicInteger polls = new AtomicInteger();

        CancellationException e = assertThrows(CancellationException.class,
                () -> buildSplit(values(20_000), 32 << 10, ts -> false, () -> polls.incrementAndGet() > 8));

        assertTrue(e.getMessage().contains("table "), e.getMessage());
        assertEquals(List.of(), tableFiles());
    }

    @Test
    void aTableWrittenButNotOpenedIsDeleted() throws IOException {
        // No cache to open with stands for any failure of the open once the table is complete (no mapping left, say).
        assertThrows(NullPointerException.class, () -> TableBuilder.build(dir, numbers.getAndIncrement(), values(1_000),
                1_000, DaoOptions.defaults(dir), null, NOW, ts -> false, () -> false));
        assertEquals(List.of(), tableFiles());
        assertThrows(NullPointerException.class, () -> TableBuilder.buildSplit(dir, numbers::getAndIncrement,
                SortedEntries.of(values(5_000)), 1_000, DaoOptions.defaults(dir), null, 32 << 10, NOW, ts -> false,
                () -> false, null));
        assertEquals(List.of(), tableFiles());
    }

    private TableBuilder.BuiltTables buildSplit(Iterator<Entry> entries, long targetBytes,
                                                LongPredicate mayDrop, BooleanSupplier cancelled) throws IOException {
        return TableBuilder.buildSplit(dir, numbers::getAndIncrement, SortedEntries.of(entries), 1_000,
                DaoOptions.defaults(dir), BlockCache.disabled(), targetBytes, NOW, mayDrop, cancelled, null);
    }

    private List<Path> tableFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> !Files.isDirectory(p)).toList();
        }
    }

    /** Values of random bytes, so that the tables' compression cannot shrink them below the target. */
    private static Iterator<Entry> values(int count) {
        Random random = new Random(count);
        return IntStream.range(0, count).mapToObj(i -> {
            byte[] value = new byte[40];
            random.nextBytes(value);
            return Entry.value(key(i), value, i);
        }).iterator();
    }

    private static byte[] key(int i) {
        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
    }
}
