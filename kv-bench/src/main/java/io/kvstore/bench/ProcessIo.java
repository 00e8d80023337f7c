package io.kvstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this process has read from the storage devices so far, from {@code /proc/self}: bytes the
 * kernel fetched for it (page faults on mapped tables included) and its major page faults. Reads served
 * by the page cache count in neither, so the two say whether a phase read from the disk or from memory;
 * minor page faults count first touches of mapped pages the page cache already held.
 *
 * @param readBytes   {@code read_bytes} of {@code /proc/self/io}, or -1 where unreadable
 * @param majorFaults {@code majflt} of {@code /proc/self/stat}, or -1 where unreadable
 * @param minorFaults {@code minflt} of {@code /proc/self/stat}, or -1 where unreadable
 */
record ProcessIo(long readBytes, long majorFaults, long minorFaults) {
    /** Field numbers in {@code /proc/self/stat} (proc(5)), counted from 1. */
    private static final int MINFLT = 10;
    private static final int MAJFLT = 12;

    static ProcessIo now() {
        return new ProcessIo(readBytesSoFar(), faultsSoFar(MAJFLT), faultsSoFar(MINFLT));
    }

    /** What happened between {@code earlier} and this snapshot; unknown (-1) stays unknown. */
    ProcessIo since(ProcessIo earlier) {
        return new ProcessIo(difference(readBytes, earlier.readBytes), difference(majorFaults, earlier.majorFaults),
                difference(minorFaults, earlier.minorFaults));
    }

    private static long difference(long later, long earlier) {
        return later < 0 || earlier < 0 ? -1 : later - earlier;
    }

    private static long readBytesSoFar() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
                if (line.startsWith("read_bytes:")) {
                    return Long.parseLong(line.substring("read_bytes:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc hidden: reported as unknown
        }
        return -1;
    }

    private static long faultsSoFar(int field) {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // Fields after the command name, which may hold spaces: the first of them, state, is field 3.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[field - 3]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
