package io.kvstore.core.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Nice values of this process's threads as Linux reports them in /proc, for tests. */
public final class ProcThreads {
    private ProcThreads() {
    }

    /** The calling thread's nice value. */
    public static int niceOfCurrentThread() {
        return nice(Path.of("/proc/thread-self"));
    }

    /** Nice values of this process's threads named {@code name} (as the kernel truncates it: 15 characters). */
    public static List<Integer> nicesOfThreadsNamed(String name) {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        List<Integer> nices = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(comm)) {
                        nices.add(nice(task));
                    }
                } catch (IOException | UncheckedIOException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return nices;
    }

    private static int nice(Path task) {
        try {
            String stat = Files.readString(task.resolve("stat"));
            // Fields after the parenthesised name, which may hold spaces: state is field 3, nice field 19.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[19 - 3]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
