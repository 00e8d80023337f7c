package io.kvstore.core;

import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.FaultyStorage.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AtomicFileTest {
    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    /** The steps of a replacement, each failed in turn, with what the file holds after that failure. */
    enum Step {
        WRITE_TEMPORARY("old"),
        FSYNC_TEMPORARY("old"),
        RENAME("old"),
        FSYNC_DIRECTORY("new");

        final String afterFailure;

        Step(String afterFailure) {
            this.afterFailure = afterFailure;
        }

        Fault inject(FaultyStorage storage, Path dir) {
            switch (this) {
                case WRITE_TEMPORARY: return storage.failNth(Op.WRITE, "state\\.tmp", 1);
                case FSYNC_TEMPORARY: return storage.failNth(Op.FSYNC, "state\\.tmp", 1);
                case RENAME: return storage.failNth(Op.RENAME, "state", 1);
                default: return storage.failNth(Op.FSYNC, dir.getFileName().toString(), 1);
            }
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    String read(AtomicFile file) throws IOException {
        byte[] contents = file.read();
        return contents == null ? null : new String(contents, StandardCharsets.UTF_8);
    }

    @Test
    void aFileThatDoesNotExistReadsAsNullAndAReplacementCreatesIt() throws IOException {
        AtomicFile file = new AtomicFile(Storage.local(), dir.resolve("state"));
        assertNull(file.read());
        file.replace(bytes("first"));
        file.replace(bytes("second, longer"));
        file.replace(bytes("third"));
        assertEquals("third", read(file));
        assertEquals(dir.resolve("state.tmp"), file.temporary());
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void aFailureAtEachStepLeavesTheOldOrTheNewContents(Step step) throws IOException {
        AtomicFile file = new AtomicFile(storage, dir.resolve("state"));
        file.replace(bytes("old"));
        Fault fault = step.inject(storage, dir);
        assertThrows(IOException.class, () -> file.replace(bytes("new")));
        assertEquals(1, fault.fired(), "the step was reached");
        assertEquals(step.afterFailure, read(file), "as the failure left it");
        storage.powerCut();
        storage.powerOn();
        assertEquals("old", read(file), "after a power cut: the replacement was never made durable");
        file.replace(bytes("new"));
        assertEquals("new", read(file), "the next replacement works");
    }

    @Test
    void aReplacementIsDurableOnceItReturns() throws IOException {
        AtomicFile file = new AtomicFile(storage, dir.resolve("state"));
        file.replace(bytes("old"));
        file.replace(bytes("new"));
        storage.powerCut();
        storage.powerOn();
        assertEquals("new", read(file));
    }
}
