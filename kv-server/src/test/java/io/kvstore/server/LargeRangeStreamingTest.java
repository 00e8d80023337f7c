package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The range endpoint streams with back-pressure: a store of more than 1 GiB is read in full from a
 * server whose whole heap is 64 MiB (a separate JVM), and SIGTERM then stops it cleanly with the store
 * intact.
 */
@Tag("slow")
class LargeRangeStreamingTest {
    // 64 KiB values: a range merges one decoded entry per table, so the heap bound is tables x value
    // size, independent of the size of the range (1 MiB values x 17 tables left too little of 64 MiB).
    private static final int VALUE_BYTES = 64 << 10;
    private static final int ENTRIES = 17_600; // 1.1 GiB of values

    @TempDir
    Path dir;

    @Test
    void aStoreLargerThanAGibibyteStreamsFromA64MiBHeapAndSigtermStopsCleanly() throws Exception {
        Path data = dir.resolve("data");
        byte[] value = new byte[VALUE_BYTES];
        new Random(1).nextBytes(value);
        try (Dao dao = Engine.LSM.open(DaoOptions.builder(data).flushThresholdBytes(64 << 20).build())) {
            for (int i = 0; i < ENTRIES; i++) {
                dao.upsert(Entry.value(key(i), value, i + 1));
            }
            dao.flush();
        }
        int port = TestCluster.freePort();
        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(javaBinary(), "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "--port", Integer.toString(port), "--data-dir", data.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitListening(server, port, log);
            long bytes = 0;
            int entries = 0;
            try (Socket socket = new Socket("127.0.0.1", port)) {
                OutputStream out = socket.getOutputStream();
                out.write(("GET /v0/entities?start=key HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                byte[] buffer = new byte[256 << 10];
                byte[] marker = "key0".getBytes(StandardCharsets.US_ASCII);
                int matched = 0;
                for (int n; (n = in.read(buffer)) > 0; ) {
                    bytes += n;
                    for (int i = 0; i < n; i++) { // count entry starts ("key0..."), across reads too
                        matched = buffer[i] == marker[matched] ? matched + 1 : (buffer[i] == marker[0] ? 1 : 0);
                        if (matched == marker.length) {
                            entries++;
                            matched = 0;
                        }
                    }
                }
            }
            assertTrue(bytes > (long) ENTRIES * VALUE_BYTES, "streamed " + bytes + " bytes; server log:\n" + Files.readString(log));
            assertTrue(entries >= ENTRIES, "saw " + entries + " entry keys");
            assertTrue(server.isAlive(), "the 64 MiB server survived the stream:\n" + Files.readString(log));
        } finally {
            server.destroy(); // SIGTERM
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "server did not stop on SIGTERM");
        }
        String output = Files.readString(log);
        assertTrue(output.contains("stopped"), "clean shutdown logged:\n" + output);
        assertTrue(!output.contains("OutOfMemoryError"), output);
        try (Dao dao = Engine.LSM.open(DaoOptions.defaults(data));
             CloseableIterator<Entry> all = dao.range(null, null)) {
            List<Entry> sample = new ArrayList<>();
            int count = 0;
            while (all.hasNext()) {
                Entry e = all.next();
                if (count++ % 500 == 0) {
                    sample.add(e);
                }
            }
            assertEquals(ENTRIES, count, "the store is intact after SIGTERM");
            assertEquals(VALUE_BYTES, sample.get(0).value().length);
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Polls the port (bounded): the child JVM needs a moment to open the store and bind. */
    private static void awaitListening(Process server, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new AssertionError("server exited early:\n" + Files.readString(log));
            }
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                try {
                    server.onExit().get(50, TimeUnit.MILLISECONDS); // waits on the process, not a blind sleep
                } catch (TimeoutException stillStarting) {
                    // poll again
                }
            }
        }
        throw new AssertionError("server did not listen within 60 s:\n" + Files.readString(log));
    }
}
