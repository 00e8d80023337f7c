package io.kvstore.core.internal.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Nice values and scheduling policies of this process's threads as Linux reports them in /proc, for tests. */
public final class ProcThreads {
    private ProcThreads() {
    }

    /** Linux's number for the SCHED_IDLE policy. */
    public static final int SCHED_IDLE = 5;

    /** The calling thread's nice value. */
    public static int niceOfCurrentThread() {
        return nice(Path.of("/proc/thread-self"));
    }

    /** The calling thread's scheduling policy (0 SCHED_OTHER, 3 SCHED_BATCH, 5 SCHED_IDLE). */
    public static int policyOfCurrentThread() {
        return statField(Path.of("/proc/thread-self"), 41);
    }

    /** Nice values of this process's threads named {@code name} (as the kernel truncates it: 15 characters). */
    public static List<Integer> nicesOfThreadsNamed(String name) {
        return fieldOfThreadsNamed(name, 19);
    }

    /** Scheduling policies of this process's threads named {@code name}. */
    public static List<Integer> policiesOfThreadsNamed(String name) {
        return fieldOfThreadsNamed(name, 41);
    }

    private static List<Integer> fieldOfThreadsNamed(String name, int field) {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        List<Integer> values = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        values.add(statField(task, field));
                    }
                } catch (IOException | UncheckedIOException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return values;
    }

    private static int nice(Path task) {
        return statField(task, 19);
    }

    /** Field {@code field} (numbered from 1 as in proc(5)) of a thread's stat file. */
    private static int statField(Path task, int field) {
        try {
            String stat = Files.readString(task.resolve("stat"));
            // Fields after the parenthesised name, which may hold spaces: state is field 3, nice 19, policy 41.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[field - 3]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
