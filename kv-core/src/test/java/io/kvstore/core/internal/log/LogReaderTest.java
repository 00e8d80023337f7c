package io.kvstore.core.internal.log;

import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.CorruptionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogReaderTest {
    @TempDir
    Path dir;

    private static final int RECORDS = 5;

    /** Writes RECORDS entries; returns the file offset where each record starts, plus the file end. */
    private long[] writeLog(Path file) throws IOException {
        long[] starts = new long[RECORDS + 1];
        starts[0] = LogFormat.FILE_HEADER;
        try (WriteAheadLog log = new WriteAheadLog(file, SyncPolicy.NONE, 2)) {
            for (int i = 0; i < RECORDS; i++) {
                Entry entry = i == 2 ? Entry.tombstone(key(i), i) : Entry.value(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8), i);
                starts[i + 1] = LogFormat.FILE_HEADER + log.append(entry);
            }
        }
        return starts;
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Entry> replay(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        LogReader.replay(file, entries::add);
        return entries;
    }

    @Test
    void replaysEveryRecordInOrder() throws IOException {
        Path file = dir.resolve("000001.wal");
        writeLog(file);
        List<Entry> entries = replay(file);
        assertEquals(RECORDS, entries.size());
        for (int i = 0; i < RECORDS; i++) {
            assertArrayEquals(key(i), entries.get(i).key());
            assertEquals(i, entries.get(i).timestamp());
        }
        assertTrue(entries.get(2).isTombstone());
        assertNull(entries.get(2).value());
    }

    @Test
    void tailTornAtEveryByteOfTheLastRecordKeepsTheEarlierRecords() throws IOException {
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        byte[] whole = Files.readAllBytes(file);
        for (long cut = starts[RECORDS - 1]; cut < starts[RECORDS]; cut++) {
            Path torn = dir.resolve("torn-" + cut + ".wal");
            Files.write(torn, Arrays.copyOf(whole, (int) cut));
            List<Entry> entries = new ArrayList<>();
            LogReader.Result result = LogReader.replay(torn, entries::add);
            assertEquals(RECORDS - 1, entries.size(), "cut at " + cut);
            assertEquals(starts[RECORDS - 1], result.validLength, "cut at " + cut);
            assertEquals(cut - starts[RECORDS - 1], result.tornBytes, "cut at " + cut);
        }
    }

    @Test
    void garbledLastRecordIsATornTail() throws IOException {
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        for (long at = starts[RECORDS - 1]; at < starts[RECORDS]; at++) {
            Path garbled = dir.resolve("garbled-" + at + ".wal");
            Files.copy(file, garbled);
            flipByte(garbled, at);
            List<Entry> entries = new ArrayList<>();
            LogReader.replay(garbled, entries::add);
            assertTrue(entries.size() >= RECORDS - 1, "flip at " + at);
            assertEquals(RECORDS - 1, entries.size(), "flip at " + at);
        }
    }

    @Test
    void lastRecordCopiedOnlyInPartBeforeAZeroWindowIsATornTail() throws IOException {
        // A process killed while copying a record into a mapped log leaves its first bytes, then zeros.
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        byte[] whole = Files.readAllBytes(file);
        for (long copied = starts[RECORDS - 1]; copied < starts[RECORDS]; copied++) {
            Path cut = dir.resolve("cut-" + copied + ".wal");
            byte[] bytes = Arrays.copyOf(whole, whole.length + 4096);
            Arrays.fill(bytes, (int) copied, bytes.length, (byte) 0);
            Files.write(cut, bytes);
            LogReader.Result result = LogReader.replay(cut, entry -> { });
            assertEquals(RECORDS - 1, result.records, "copied up to " + copied);
            assertEquals(starts[RECORDS - 1], result.validLength, "copied up to " + copied);
        }
    }

    @Test
    void zeroFilledTailIsATornTail() throws IOException {
        Path file = dir.resolve("000001.wal");
        writeLog(file);
        Files.write(file, new byte[4096], StandardOpenOption.APPEND);
        assertEquals(RECORDS, replay(file).size());
    }

    @Test
    void corruptionBeforeTheTailIsReportedWithFileAndOffset() throws IOException {
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        flipByte(file, starts[1] + 12);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(file));
        assertEquals(starts[1], e.offset());
        assertEquals(file, e.file());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("offset " + starts[1]),
                e.getMessage());
    }

    @Test
    void corruptLengthBeforeTheTailIsReported() throws IOException {
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        flipByte(file, starts[2] + 4);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(file));
        assertEquals(starts[2], e.offset());
    }

    @Test
    void aLengthDamagedToReachPastTheEndIsCorruptionWhileRecordsFollowIt() throws IOException {
        Path file = dir.resolve("000001.wal");
        long[] starts = writeLog(file);
        for (int record : new int[] {0, 3}) {
            for (int zeros : new int[] {0, 3 * 4096}) { // a closed log, and one killed with its window's zeros ahead
                Path damaged = dir.resolve("damaged-" + record + "-" + zeros + ".wal");
                Files.copy(file, damaged);
                Files.write(damaged, new byte[zeros], StandardOpenOption.APPEND);
                flipByte(damaged, starts[record] + 7); // the length's high byte: far past the end of the file
                CorruptionException e = assertThrows(CorruptionException.class, () -> replay(damaged),
                        "every record after it would be dropped without a word");
                assertEquals(starts[record], e.offset());
                assertTrue(e.getMessage().contains("past the end"), e.getMessage());
            }
        }
        Path last = dir.resolve("last.wal");
        Files.copy(file, last);
        flipByte(last, starts[RECORDS - 1] + 7);
        assertEquals(RECORDS - 1, replay(last).size(), "the last record's length: a torn tail");
    }

    @Test
    void aPageOfZerosBeforeMoreRecordsIsATornTail() throws IOException {
        // After a machine crash the OS may have written back later pages of a log but not an earlier one,
        // which then reads as zeros: nothing after it was forced, so the log ends there.
        Path file = dir.resolve("000001.wal");
        List<Long> starts = new ArrayList<>();
        try (WriteAheadLog log = new WriteAheadLog(file, SyncPolicy.NONE, 2)) {
            for (int i = 0; i < 300; i++) {
                starts.add(LogFormat.FILE_HEADER + log.append(Entry.value(key(i), new byte[90], i)) );
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        assertTrue(bytes.length > 4 * 4096);
        Arrays.fill(bytes, 2 * 4096, 3 * 4096, (byte) 0);
        Files.write(file, bytes);
        int before = 0;
        while (starts.get(before) <= 2 * 4096) {
            before++; // records ending at or before the zero page
        }
        LogReader.Result result = LogReader.replay(file, entry -> { });
        assertEquals(before, result.records);
        assertEquals(before == 0 ? LogFormat.FILE_HEADER : starts.get(before - 1), result.validLength);
        assertEquals(bytes.length - result.validLength, result.tornBytes);
    }

    @Test
    void fileShorterThanItsHeaderIsAnEmptyLog() throws IOException {
        Path file = dir.resolve("000001.wal");
        Files.write(file, new byte[] {0x4B, 0x56});
        assertEquals(0, replay(file).size());
    }

    @Test
    void notALogIsReported() throws IOException {
        Path file = dir.resolve("000001.wal");
        Files.write(file, "definitely not a log file".getBytes(StandardCharsets.UTF_8));
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(file));
        assertEquals(0, e.offset());
    }

    static void flipByte(Path file, long at) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
            channel.read(one, at);
            one.flip();
            byte b = one.get();
            channel.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) (b ^ 0x5A)}), at);
        }
    }
}
