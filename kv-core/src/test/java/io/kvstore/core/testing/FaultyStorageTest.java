package io.kvstore.core.testing;

import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.FaultyStorage.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultyStorageTest {
    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    String contents(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.US_ASCII);
    }

    FileChannel create(String name) throws IOException {
        return storage.open(dir.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }

    @Test
    void onlyTheNthMatchingWriteFailsAndItWritesNothing() throws IOException {
        Fault third = storage.failNth(Op.WRITE, ".*\\.log", 3);
        try (FileChannel log = create("a.log"); FileChannel other = create("b.dat")) {
            other.write(text("x"));
            log.write(text("1"));
            other.write(text("x"));
            log.write(text("2"));
            assertEquals(0, third.fired(), "writes to other files do not count");
            IOException e = assertThrows(IOException.class, () -> log.write(text("3")));
            assertTrue(e.getMessage().contains("a.log"), e.getMessage());
            log.write(text("4"), 2);
            assertEquals(1, third.fired());
        }
        assertEquals("124", contents(dir.resolve("a.log")));
        assertEquals("xx", contents(dir.resolve("b.dat")));
    }

    @Test
    void theNthFsyncOfAFileOrADirectoryFails() throws IOException {
        Fault second = storage.failNth(Op.FSYNC, "a\\.log|" + dir.getFileName(), 2);
        try (FileChannel log = create("a.log")) {
            log.force(true);
            assertThrows(IOException.class, () -> log.force(false));
            log.force(true);
        }
        storage.syncDirectory(dir);
        Fault directory = storage.failNth(Op.FSYNC, dir.getFileName().toString(), 1);
        assertThrows(IOException.class, () -> storage.syncDirectory(dir));
        assertEquals(1, second.fired());
        assertEquals(1, directory.fired());
    }

    @Test
    void aRenameCountsOnceWhicheverOfItsNamesMatchesAndAFailedOneMovesNothing() throws IOException {
        Files.writeString(dir.resolve("M.tmp"), "new");
        Files.writeString(dir.resolve("M"), "old");
        Fault second = storage.failNth(Op.RENAME, "M.*", 2);
        storage.rename(dir.resolve("M.tmp"), dir.resolve("M"));
        Files.writeString(dir.resolve("M.tmp"), "newer");
        assertThrows(IOException.class, () -> storage.rename(dir.resolve("M.tmp"), dir.resolve("M")));
        assertEquals(1, second.fired());
        assertEquals("new", contents(dir.resolve("M")));
        assertTrue(Files.exists(dir.resolve("M.tmp")));
    }

    @Test
    void aDiskGoneBadFailsEveryMatchingOperationFromTheNthUntilRepaired() throws IOException {
        Fault bad = storage.failFrom(Op.FSYNC, "f", 2);
        try (FileChannel file = create("f")) {
            file.force(true);
            assertThrows(IOException.class, () -> file.force(true));
            assertThrows(IOException.class, () -> file.force(false));
            storage.repair();
            file.force(true);
        }
        assertEquals(2, bad.fired());
    }

    @Test
    void aFullDiskFailsEveryWriteFromTheNthWithENOSPC() throws IOException {
        Fault full = storage.noSpace(".*", 2);
        try (FileChannel file = create("f")) {
            file.write(text("a"));
            for (int i = 0; i < 3; i++) {
                IOException e = assertThrows(IOException.class, () -> file.write(text("b")));
                assertTrue(e.getMessage().contains(FaultyStorage.NO_SPACE), e.getMessage());
            }
            assertEquals(0, storage.usableSpace(dir));
            storage.repair();
            file.write(text("c"));
        }
        assertEquals(3, full.fired());
        assertEquals("ac", contents(dir.resolve("f")));
    }

    @Test
    void aPowerCutKeepsWhatWasForcedAndDropsTheRest() throws IOException {
        Path file = dir.resolve("f");
        try (FileChannel channel = create("f")) {
            channel.write(text("durable"));
            channel.force(false);
            storage.syncDirectory(dir);
            channel.write(text(" and not"));
            channel.write(text("D"), 0);
        }
        assertEquals("Durable and not", contents(file));
        storage.powerCut();
        assertEquals("durable", contents(file));
    }

    @Test
    void aPowerCutDropsANameItsDirectoryWasNotSyncedFor() throws IOException {
        Files.writeString(dir.resolve("old"), "there before");
        try (FileChannel created = create("created")) {
            created.write(text("forced"));
            created.force(true);
        }
        storage.delete(dir.resolve("old"));
        Files.writeString(dir.resolve("moved"), "moved");
        storage.rename(dir.resolve("moved"), dir.resolve("target"));
        storage.powerCut();
        assertFalse(Files.exists(dir.resolve("created")), "a creation the directory did not record");
        assertEquals("there before", contents(dir.resolve("old")), "a deletion it did not record");
        assertEquals("moved", contents(dir.resolve("moved")), "a rename it did not record");
        assertFalse(Files.exists(dir.resolve("target")));
    }

    @Test
    void aSyncedDirectoryKeepsItsNamesThroughAPowerCut() throws IOException {
        Files.writeString(dir.resolve("old"), "there before");
        try (FileChannel created = create("created")) {
            created.write(text("forced"));
            created.force(true);
        }
        storage.delete(dir.resolve("old"));
        Files.writeString(dir.resolve("moved"), "moved");
        storage.rename(dir.resolve("moved"), dir.resolve("target"));
        storage.syncDirectory(dir);
        storage.powerCut();
        assertEquals("forced", contents(dir.resolve("created")));
        assertFalse(Files.exists(dir.resolve("old")));
        assertFalse(Files.exists(dir.resolve("moved")));
        assertEquals("moved", contents(dir.resolve("target")));
    }

    @Test
    void aPowerCutDropsWhatAMappingStoredUntilItsFileIsForced() throws IOException {
        Path file = dir.resolve("mapped");
        try (FileChannel channel = create("mapped")) {
            channel.write(ByteBuffer.allocate(8), 0);
            MappedByteBuffer window = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8);
            window.put(0, (byte) 1);
            channel.force(false);
            storage.syncDirectory(dir);
            window.put(1, (byte) 2);
            assertArrayEquals(new byte[] {1, 2, 0, 0, 0, 0, 0, 0}, Files.readAllBytes(file));
            storage.powerCut();
            window.put(2, (byte) 3); // a store still shutting down writes into its old mapping
        }
        assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, Files.readAllBytes(file));
    }

    @Test
    void nothingWorksBetweenAPowerCutAndPowerOn() throws IOException {
        FileChannel before = create("f");
        storage.powerCut();
        assertThrows(IOException.class, () -> before.write(text("x")));
        assertThrows(IOException.class, () -> create("g"));
        assertThrows(IOException.class, () -> storage.syncDirectory(dir));
        storage.powerOn();
        try (FileChannel after = create("g")) {
            after.write(text("x"));
        }
        before.close();
    }

    @Test
    void aFlippedBitReadsFlippedThroughChannelsAndMappingsButTheFileKeepsIt() throws IOException {
        Random random = new Random(Seeds.seed("FaultyStorageTest"));
        byte[] bytes = new byte[4096];
        random.nextBytes(bytes);
        Path file = dir.resolve("t.sst");
        Files.write(file, bytes);
        int offset = random.nextInt(bytes.length);
        int bit = random.nextInt(8);
        storage.flipBit(".*\\.sst", offset, bit);
        byte[] expected = bytes.clone();
        expected[offset] ^= (byte) (1 << bit);
        try (FileChannel channel = storage.open(file, StandardOpenOption.READ)) {
            ByteBuffer read = ByteBuffer.allocate(bytes.length);
            while (read.hasRemaining() && channel.read(read) >= 0) {
                // to the end
            }
            assertArrayEquals(expected, read.array(), "read in sequence");
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            assertEquals(expected[offset], one.get(0), "read at a position");
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length);
            byte[] seen = new byte[bytes.length];
            mapped.get(seen);
            assertArrayEquals(expected, seen, "mapped");
        }
        assertArrayEquals(bytes, Files.readAllBytes(file));
    }
}
