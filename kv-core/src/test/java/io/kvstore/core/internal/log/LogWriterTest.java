package io.kvstore.core.internal.log;

import io.kvstore.core.Entry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Both ways of appending produce the same log, byte for byte, whatever the record sizes. */
class LogWriterTest {
    @TempDir
    Path dir;

    private final ExecutorService zeroer = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopZeroer() {
        zeroer.shutdownNow();
    }

    /**
     * written: write(2) per record; mapped: zeros written by the appending thread; ahead: on another
     * thread; late: on another thread 2 ms after they were asked for, so that appends catch up with them.
     */
    private LogWriter open(Path file, String mode) throws IOException {
        switch (mode) {
            case "written": return new LogWriter(file, false);
            case "mapped": return new LogWriter(file, true);
            case "ahead": return new LogWriter(file, true, zeroer);
            case "late": return new LogWriter(file, true,
                    task -> CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS, zeroer).execute(task));
            default: throw new IllegalArgumentException(mode);
        }
    }

    /** Sizes around the window: many small records cross window edges; a few are larger than a window. */
    private static List<Entry> entries(long seed) {
        Random random = new Random(seed);
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            byte[] key = ("key-" + i).getBytes();
            int roll = random.nextInt(100);
            int valueSize = roll < 2 ? LogWriter.WINDOW_BYTES + random.nextInt(4096)
                    : roll < 10 ? random.nextInt(LogWriter.WINDOW_BYTES / 4) : random.nextInt(300);
            byte[] value = new byte[valueSize];
            random.nextBytes(value);
            entries.add(roll == 99 ? Entry.tombstone(key, i) : Entry.value(key, value, i));
        }
        return entries;
    }

    @ParameterizedTest
    @ValueSource(strings = {"written", "mapped", "ahead", "late"})
    void everyRecordReadsBackInOrderAndTheClosedFileEndsAtTheLastRecord(String mode) throws IOException {
        long seed = System.nanoTime();
        List<Entry> written = entries(seed);
        Path file = dir.resolve("000001.wal");
        long end = LogFormat.FILE_HEADER;
        try (LogWriter writer = open(file, mode)) {
            for (Entry entry : written) {
                end += writer.append(entry);
            }
        }
        assertEquals(end, Files.size(file), "seed " + seed + ": the file must end at the last record");
        assertSameEntries(written, file, "seed " + seed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mapped", "ahead", "late"})
    void aMappedLogReadWhileOpenAsAfterAKillHoldsEveryRecordThenZeros(String mode) throws IOException {
        long seed = System.nanoTime();
        List<Entry> written = entries(seed).subList(0, 300);
        Path file = dir.resolve("000001.wal");
        Path copy = dir.resolve("000002.wal");
        try (LogWriter writer = open(file, mode)) {
            long end = LogFormat.FILE_HEADER;
            for (Entry entry : written) {
                end += writer.append(entry);
            }
            // What a killed process leaves: the records in the page cache, then the window's zeros.
            Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
            assertTrue(Files.size(copy) > end, "the mapped window extends the file ahead of the records");
            LogReader.Result result = assertSameEntries(written, copy, "seed " + seed);
            assertEquals(end, result.validLength);
            assertEquals(Files.size(copy) - end, result.tornBytes);
        }
    }

    private static LogReader.Result assertSameEntries(List<Entry> expected, Path file, String context) throws IOException {
        List<Entry> read = new ArrayList<>();
        LogReader.Result result = LogReader.replay(file, read::add);
        assertEquals(expected.size(), read.size(), context);
        for (int i = 0; i < expected.size(); i++) {
            Entry e = expected.get(i);
            Entry r = read.get(i);
            assertArrayEquals(e.key(), r.key(), context + ", record " + i);
            assertArrayEquals(e.value(), r.value(), context + ", record " + i);
            assertEquals(e.timestamp(), r.timestamp(), context + ", record " + i);
        }
        return result;
    }
}
