package io.kvstore.core.testing;

import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.FaultyStorage.Op;
import java.nio.file.Path;

/**
 * What a write-point test does to the disk in its nth run: the disk full from the nth write on, the nth
 * fsync failing, or no fault and the power cut after the nth step of its workload. Such a test runs
 * its workload once per write point, until the fault no longer fires.
 */
public enum WritePointFault {
    /** The disk is full from the nth write on, until it is given space again. */
    NO_SPACE_FROM_NTH_WRITE,
    /** The nth fsync (of a file or a directory) fails with ENOSPC. */
    NTH_FSYNC_FAILS,
    /** No fault: the power is cut after the nth step of the workload. */
    POWER_CUT_AFTER_NTH_STEP;

    /** Puts this fault, for run {@code nth}, on every file of {@code storage}; null for a power cut. */
    public Fault inject(FaultyStorage storage, int nth) {
        return switch (this) {
            case NO_SPACE_FROM_NTH_WRITE -> storage.noSpace(".*", nth);
            case NTH_FSYNC_FAILS -> storage.failNth(Op.FSYNC, ".*", nth, FaultyStorage.NO_SPACE);
            case POWER_CUT_AFTER_NTH_STEP -> null;
        };
    }

    /**
     * Which of the files of a store in {@code dir} {@code file} is, as a fault's {@link Fault#firedOn()}
     * names it: the directory (its sync), a log, a table, the manifest, or else its name.
     */
    public static String fileKind(Path file, Path dir) {
        String name = file.getFileName().toString();
        if (file.equals(dir.toAbsolutePath().normalize())) {
            return "directory";
        }
        if (name.endsWith(".wal")) {
            return "log";
        }
        if (name.endsWith(".sst")) {
            return "table";
        }
        if (name.startsWith("MANIFEST")) {
            return "manifest";
        }
        return name;
    }
}
