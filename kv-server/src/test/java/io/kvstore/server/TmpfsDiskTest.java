package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose data directory is a small tmpfs, a real disk filling up: under load it refuses writes
 * with 507 and nothing else, serves reads, takes writes again once the tmpfs is grown, and holds every
 * acknowledged write after a kill -9 and a restart. Needs root to mount (CI runs as root): a refused
 * mount fails the test rather than skipping it.
 */
@Tag("slow")
class TmpfsDiskTest {
    private static final long FLOOR = 8L << 20;
    /** Writes in flight at once. */
    private static final int CONCURRENCY = 8;

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), String.join(" ", command) + ": " + output);
    }

    private CompletableFuture<HttpResponse<String>> send(int port, String method, String key, String body) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v0/entity?id=" + key))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Writes new keys, {@link #CONCURRENCY} at a time, until {@code until} of them were refused with 507 or
     * {@code max} were sent; any answer but 201 and 507 fails. Returns how many were refused.
     */
    private int load(int port, Map<String, String> acknowledged, Random random, String prefix, int until, int max)
            throws Exception {
        int refused = 0;
        for (int sent = 0; sent < max && refused < until; sent += CONCURRENCY) {
            List<String> keys = new ArrayList<>();
            List<String> values = new ArrayList<>();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < CONCURRENCY; i++) {
                byte[] bytes = new byte[3072];
                random.nextBytes(bytes);
                keys.add(prefix + (sent + i));
                values.add(Base64.getEncoder().encodeToString(bytes));
                answers.add(send(port, "PUT", keys.get(i), values.get(i)));
            }
            for (int i = 0; i < CONCURRENCY; i++) {
                HttpResponse<String> answer = answers.get(i).get(60, TimeUnit.SECONDS);
                if (answer.statusCode() == 201) {
                    acknowledged.put(keys.get(i), values.get(i));
                } else {
                    assertEquals(507, answer.statusCode(), keys.get(i) + ": " + answer.body());
                    refused++;
                }
            }
        }
        return refused;
    }

    @Test
    void aNodeFillingItsTmpfsRefusesWritesServesReadsResumesWhenGrownAndLosesNothingOverARestart() throws Exception {
        Random random = new Random(Seeds.seed("TmpfsDiskTest"));
        Path mount = Files.createDirectories(dir.resolve("tmpfs"));
        run("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mount.toString());
        ChildServer child = null;
        try {
            Path data = mount.resolve("data");
            int port = TestCluster.freePort();
            String[] flags = {"--min-free-bytes", Long.toString(FLOOR), "--flush-threshold", Long.toString(4L << 20)};
            child = ChildServer.start(port, data, "-Xmx256m", flags);
            Map<String, String> acknowledged = new LinkedHashMap<>();

            int refused = load(port, acknowledged, random, "fill-", 40, 100_000);
            assertTrue(refused >= 40, "the tmpfs never filled: " + acknowledged.size() + " writes acknowledged");
            assertTrue(acknowledged.size() > 1000, "writes acknowledged before the floor: " + acknowledged.size());
            int checked = 0;
            for (Map.Entry<String, String> entry : acknowledged.entrySet()) {
                if (checked++ % 50 == 0) {
                    HttpResponse<String> read = send(port, "GET", entry.getKey(), null).get(60, TimeUnit.SECONDS);
                    assertEquals(200, read.statusCode(), "reads go on while writes are refused: " + entry.getKey());
                    assertEquals(entry.getValue(), read.body());
                }
            }

            run("mount", "-o", "remount,size=160m", mount.toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int resumed = 0;
            while (resumed < 200) {
                int before = acknowledged.size();
                load(port, acknowledged, random, "resumed-" + resumed + "-", 1, CONCURRENCY);
                resumed += acknowledged.size() - before;
                assertTrue(System.nanoTime() < deadline, "writes not taken again within 30 s of the tmpfs growing");
            }

            child.process.toHandle().destroyForcibly();
            child.process.waitFor();
            child = ChildServer.start(port, data, "-Xmx256m", flags);
            for (Map.Entry<String, String> entry : acknowledged.entrySet()) {
                HttpResponse<String> read = send(port, "GET", entry.getKey(), null).get(60, TimeUnit.SECONDS);
                assertEquals(200, read.statusCode(), "acknowledged, then lost over kill -9: " + entry.getKey());
                assertEquals(entry.getValue(), read.body(), entry.getKey());
            }
        } finally {
            if (child != null) {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
            run("umount", mount.toString());
        }
    }
}
