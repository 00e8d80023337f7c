package io.kvstore.core.internal.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class FileWritebackTest {
    @TempDir
    Path dir;

    @Test
    @EnabledOnOs(OS.LINUX)
    void startsWriteBackOncePerStepAndLeavesTheBytesAsWritten() throws Exception {
        Path file = dir.resolve("table");
        byte[] chunk = new byte[64 << 10];
        new Random(7).nextBytes(chunk);
        long written = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             FileWriteback writeback = FileWriteback.open(file)) {
            assertTrue(writeback.isOn(), "sync_file_range through JNA");
            for (int i = 0; i < 80; i++) { // 5 MiB in 64 KiB writes
                written += channel.write(ByteBuffer.wrap(chunk));
                writeback.written(written);
                assertEquals(written / FileWriteback.STEP_BYTES, writeback.steps(), "steps after " + written + " bytes");
            }
        }
        byte[] read = Files.readAllBytes(file);
        assertEquals(written, read.length);
        for (int at = 0; at < read.length; at += chunk.length) {
            assertArrayEquals(chunk, Arrays.copyOfRange(read, at, at + chunk.length), "bytes at " + at);
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void countsOnlyWholePagesAndNothingBelowAStep() {
        Path file = dir.resolve("small");
        try (FileWriteback writeback = FileWriteback.open(nonEmpty(file))) {
            writeback.written(FileWriteback.STEP_BYTES - 1);
            writeback.written(FileWriteback.STEP_BYTES + 4095); // the last page is partial: still one step
            assertEquals(1, writeback.steps());
            writeback.written(2 * FileWriteback.STEP_BYTES - 1);
            assertEquals(1, writeback.steps(), "a step is counted from the last start");
            writeback.written(-FileWriteback.STEP_BYTES); // a writer whose buffer holds more than the file
            assertEquals(1, writeback.steps());
        }
    }

    @Test
    void aFileThatCannotBeOpenedIsFollowedByNothing() {
        try (FileWriteback writeback = FileWriteback.open(dir.resolve("missing"))) {
            assertFalse(writeback.isOn());
            writeback.written(10 * FileWriteback.STEP_BYTES);
            assertEquals(0, writeback.steps());
        }
    }

    private static Path nonEmpty(Path file) {
        try {
            return Files.write(file, new byte[1]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
