package io.kvstore.core.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalReaderTest {
    @TempDir
    Path dir;

    private Path writeLog(SyncPolicy policy, int records) throws IOException {
        Path file = dir.resolve("log-" + policy + ".wal");
        try (WalWriter wal = WalWriter.create(file, DaoOptions.builder(dir).syncPolicy(policy).build())) {
            for (int i = 0; i < records; i++) {
                long position = i % 3 == 2
                        ? wal.append(Entry.tombstone(key(i), i))
                        : wal.append(Entry.value(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8), i));
                wal.awaitDurable(position);
            }
        }
        return file;
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static List<Entry> replay(Path file) throws IOException {
        List<Entry> out = new ArrayList<>();
        WalReader.replay(file, out::add);
        return out;
    }

    @Test
    void everySyncPolicyWritesRecordsThatReplayInOrder() throws IOException {
        for (SyncPolicy policy : SyncPolicy.values()) {
            List<Entry> entries = replay(writeLog(policy, 50));
            assertEquals(50, entries.size(), policy.toString());
            for (int i = 0; i < 50; i++) {
                assertArrayEquals(key(i), entries.get(i).key());
                assertEquals(i, entries.get(i).timestamp());
                assertEquals(i % 3 == 2, entries.get(i).isTombstone());
            }
        }
    }

    @Test
    void aTornTailAtEveryByteOffsetOfTheLastRecordIsCutOff() throws IOException {
        Path full = writeLog(SyncPolicy.NONE, 10);
        byte[] bytes = Files.readAllBytes(full);
        Path nine = writeLog(SyncPolicy.EVERY_WRITE, 9);
        int lastRecordStart = (int) Files.size(nine);
        for (int cut = lastRecordStart; cut < bytes.length; cut++) {
            Path torn = dir.resolve("torn.wal");
            Files.write(torn, Arrays.copyOf(bytes, cut));
            List<Entry> entries = replay(torn);
            assertEquals(9, entries.size(), "cut at byte " + cut);
            assertEquals(lastRecordStart, Files.size(torn), "the torn tail is truncated away (cut at " + cut + ")");
            Files.delete(torn);
        }
    }

    @Test
    void zerosAfterTheLastRecordAreATornTail() throws IOException {
        Path file = writeLog(SyncPolicy.NONE, 5);
        long size = Files.size(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size + 4096); // pages allocated by a crash but never written
        }
        assertEquals(5, replay(file).size());
        assertEquals(size, Files.size(file));
    }

    @Test
    void aDamagedRecordBeforeTheTailIsCorruptionWithFileAndOffset() throws IOException {
        Path file = writeLog(SyncPolicy.NONE, 10);
        byte[] bytes = Files.readAllBytes(file);
        int offsetOfSecond = (int) Files.size(writeLog(SyncPolicy.EVERY_WRITE, 1));
        bytes[offsetOfSecond + 12] ^= 0x40; // a bit inside record 2's payload
        Files.write(file, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(file));
        assertEquals(offsetOfSecond, e.offset());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("checksum"), e.getMessage());
        assertEquals(bytes.length, Files.size(file), "corruption is reported, never cut away");
    }
}
