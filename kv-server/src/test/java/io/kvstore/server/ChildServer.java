package io.kvstore.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@link Main} in its own JVM, on this test classpath; its log lines are collected so a test can wait for one. */
final class ChildServer {
    final Process process;
    private final List<String> lines = new ArrayList<>();
    private final List<PendingLine> waiting = new ArrayList<>();
    private final Thread reader;

    private ChildServer(Process process) {
        this.process = process;
        reader = new Thread(() -> read(process.getInputStream()), "child-server-log");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a node on {@code port} with data in {@code dataDir}; returns once it listens. */
    static ChildServer start(int port, Path dataDir, String jvmOption, String... flags) throws Exception {
        ChildServer child = launch(port, dataDir, jvmOption, flags);
        child.awaitLine("listening on port " + port);
        return child;
    }

    /** Starts a node on {@code port} with data in {@code dataDir}; returns at once, whether it will listen or not. */
    static ChildServer launch(int port, Path dataDir, String jvmOption, String... flags) throws Exception {
        return launch(System.getProperty("java.class.path"), port, dataDir, jvmOption, flags);
    }

    /** {@link #launch(int, Path, String, String...)} on {@code classPath} instead of this test's. */
    static ChildServer launch(String classPath, int port, Path dataDir, String jvmOption, String... flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                jvmOption, "-cp", classPath, Main.class.getName(),
                "--port", Integer.toString(port), "--data-dir", dataDir.toString()));
        command.addAll(List.of(flags));
        return new ChildServer(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** The exit status, once the child has exited (within 60 s) and its output has been read to the end. */
    int awaitExit() throws Exception {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child did not exit within 60 s; it said:\n" + log());
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    /** How many of the lines so far contain every one of {@code fragments}. */
    int countLines(String... fragments) {
        synchronized (lines) {
            int count = 0;
            for (String line : lines) {
                boolean all = true;
                for (String fragment : fragments) {
                    all &= line.contains(fragment);
                }
                count += all ? 1 : 0;
            }
            return count;
        }
    }

    /** SIGTERM. ({@link Process#destroy()} would also close the pipe the child logs into.) */
    void terminate() {
        process.toHandle().destroy();
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT} ...) to the child with kill(1). */
    void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + signal + " failed for process " + process.pid());
        }
    }

    boolean saidSomethingContaining(String fragment) {
        synchronized (lines) {
            for (String line : lines) {
                if (line.contains(fragment)) {
                    return true;
                }
            }
            return false;
        }
    }

    String log() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    void awaitLine(String fragment) throws Exception {
        CompletableFuture<String> seen = new CompletableFuture<>();
        synchronized (lines) {
            if (saidSomethingContaining(fragment)) {
                return;
            }
            waiting.add(new PendingLine(fragment, seen));
        }
        try {
            seen.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no log line with '" + fragment + "'; the child said:\n" + log());
        }
    }

    private void read(InputStream in) {
        try (BufferedReader lineReader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = lineReader.readLine(); line != null; line = lineReader.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    for (PendingLine p : waiting) {
                        if (line.contains(p.fragment)) {
                            p.seen.complete(line);
                        }
                    }
                }
            }
        } catch (IOException e) {
            // the child is gone; awaitLine reports what it said
        }
    }

    private static final class PendingLine {
        final String fragment;
        final CompletableFuture<String> seen;

        PendingLine(String fragment, CompletableFuture<String> seen) {
            this.fragment = fragment;
            this.seen = seen;
        }
    }
}
