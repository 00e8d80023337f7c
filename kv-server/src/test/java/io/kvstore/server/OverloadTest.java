package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.ForwardingDao;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.wire.InternalCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that cannot take more work refuses it at once with 503 + Retry-After rather than queueing it
 * into a 504: its storage queue stuck behind a gate, a coordinator whose replicas refuse, and a burst of
 * large bodies over the body memory budget. Real nodes on real sockets; the storage is a real store
 * behind a gate the test opens.
 */
@Tag("slow")
class OverloadTest {
    /** The replica timeout of every node: a request refused "at once" is answered in a fraction of it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Far below {@link #TIMEOUT}: a refusal answered in this time was not queued. */
    private static final long AT_ONCE_MILLIS = 700;

    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<KvServer> nodes = new ArrayList<>();
    private final List<GatedDao> stores = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        stores.forEach(GatedDao::open);
        for (KvServer node : nodes) {
            node.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aNodeWhoseStorageCannotKeepUpAnswers503AtOnceAndServesAgainOnceItCatchesUp() throws Exception {
        KvServer node = start(List.of(), 0, 1, TIMEOUT, Long.MAX_VALUE).get(0);
        String url = "http://127.0.0.1:" + node.port();
        GatedDao store = stores.get(0);
        store.shut();
        CompletableFuture<HttpResponse<String>> first = putAsync(url, "first", "1".getBytes(StandardCharsets.UTF_8));
        CompletableFuture<HttpResponse<String>> second = putAsync(url, "second", "2".getBytes(StandardCharsets.UTF_8));
        store.awaitWaiting(1);
        Thread.sleep(700); // what is measured is the age of the queue: it must pass the 500 ms target

        long start = System.nanoTime();
        HttpResponse<String> refused = put(url, "third", "3".getBytes(StandardCharsets.UTF_8));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(503, refused.statusCode(), refused.body());
        assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
        assertTrue(millis < AT_ONCE_MILLIS, "refused after " + millis + " ms, the replica timeout is " + TIMEOUT);
        assertEquals(503, get(url, "first").statusCode(), "a read queues behind the same storage threads");

        store.open();
        assertEquals(201, first.get(10, TimeUnit.SECONDS).statusCode(), "admitted before the queue stood, served in time");
        assertEquals(201, second.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(201, putUntilTaken(url, "third", "3".getBytes(StandardCharsets.UTF_8)));
        assertEquals("3", get(url, "third").body());
        String metrics = get(url, null).body();
        assertTrue(shed(metrics, "storage_queue") + shed(metrics, "queue") >= 2, metrics);
    }

    @Test
    void aCoordinatorWhoseReplicasShedAnswers503AtOnceNot504() throws Exception {
        List<KvServer> cluster = start(List.of(1, 2), 3, 1, TIMEOUT, Long.MAX_VALUE);
        String coordinator = "http://127.0.0.1:" + cluster.get(0).port();
        // Each peer's storage thread is held by a replica write of its own, another waits behind it.
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int peer = 1; peer <= 2; peer++) {
            stores.get(peer).shut();
            String url = "http://127.0.0.1:" + cluster.get(peer).port();
            held.add(replicaWrite(url, "held-a"));
            held.add(replicaWrite(url, "held-b"));
            stores.get(peer).awaitWaiting(1);
        }
        Thread.sleep(700); // the replicas' queues must age past the 500 ms target

        long start = System.nanoTime();
        HttpResponse<String> refused = put(coordinator, "third", "3".getBytes(StandardCharsets.UTF_8));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(503, refused.statusCode(), refused.body());
        assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
        assertTrue(millis < AT_ONCE_MILLIS, "refused after " + millis + " ms, the replica timeout is " + TIMEOUT);
        assertTrue(refused.body().contains("overloaded"), refused.body());

        stores.get(1).open();
        stores.get(2).open();
        for (CompletableFuture<HttpResponse<String>> write : held) {
            assertEquals(201, write.get(10, TimeUnit.SECONDS).statusCode(), "held writes are served once the gate opens");
        }
        assertEquals(201, putUntilTaken(coordinator, "third", "3".getBytes(StandardCharsets.UTF_8)));
        for (KvServer node : cluster) {
            assertEquals("3", get("http://127.0.0.1:" + node.port(), "third").body());
        }
        assertTrue(shed(get(coordinator, null).body(), "replicas") >= 1);
    }

    /** A replica write sent straight to a node's internal route, as a coordinator sends it. */
    private CompletableFuture<HttpResponse<String>> replicaWrite(String url, String key) {
        Entry entry = Entry.value(key.getBytes(StandardCharsets.UTF_8), "held".getBytes(StandardCharsets.UTF_8), 1);
        return http.sendAsync(HttpRequest.newBuilder(URI.create(url + InternalCodec.writeUri(entry)))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(entry.value())).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void manyConcurrentLargeBodiesOverTheBudgetGet503BeforeTheyAreReadAndEveryAcknowledgedWriteIsReadable() throws Exception {
        int budget = 4 << 20;
        int value = 1 << 20;
        int puts = 24;
        // The budget holds four bodies at once: four PUTs wait at the gate holding theirs, the rest are refused.
        KvServer node = start(List.of(), 0, 1, Duration.ofSeconds(20), budget).get(0);
        String url = "http://127.0.0.1:" + node.port();
        stores.get(0).shut();
        Random random = new Random(7);
        List<byte[]> values = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        for (int i = 0; i < puts; i++) {
            byte[] bytes = new byte[value];
            random.nextBytes(bytes);
            values.add(bytes);
            answers.add(putAsync(url, "large" + i, bytes).whenComplete((answer, error) -> {
                if (answer != null && answer.statusCode() == 503) {
                    refused.incrementAndGet();
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (refused.get() < puts - 4 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(puts - 4, refused.get(), "every body beyond the budget is refused while the gate is shut");
        stores.get(0).open();
        int stored = 0;
        for (int i = 0; i < puts; i++) {
            HttpResponse<String> answer = answers.get(i).get(30, TimeUnit.SECONDS);
            if (answer.statusCode() == 201) {
                stored++;
                HttpResponse<byte[]> read = http.send(HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=large" + i)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, read.statusCode());
                assertArrayEquals(values.get(i), read.body(), "acknowledged write " + i);
            } else {
                assertEquals(503, answer.statusCode(), answer.body());
                assertEquals("1", answer.headers().firstValue("Retry-After").orElse(null));
            }
        }
        assertEquals(4, stored);
        String metrics = get(url, null).body();
        assertEquals(puts - 4, shed(metrics, "body_memory"), metrics);
        assertTrue(metrics.contains("kv_buffered_body_bytes 0.0"), "every reservation released: " + metrics);
    }

    /**
     * Starts {@code size} nodes (1 alone, else a cluster of that many), each on a gated store with
     * {@code storageThreads}; the stores of {@code gated} are the ones the test shuts, but every node has one.
     */
    private List<KvServer> start(List<Integer> gated, int size, int storageThreads, Duration timeout, long bodyBudget)
            throws Exception {
        int count = Math.max(1, size);
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            urls.add("http://127.0.0.1:" + TestCluster.freePort());
        }
        List<CompletableFuture<KvServer>> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            GatedDao store = new GatedDao(Engine.LSM.open(DaoOptions.builder(dir.resolve("store-" + i)).build()));
            stores.add(store);
            KvServerConfig.Builder config = KvServerConfig.builder().port(URI.create(urls.get(i)).getPort())
                    .self(urls.get(i)).cluster(urls).dataDirectory(dir.resolve("node-" + i)).storageThreads(storageThreads)
                    .network(network -> {
                        network.eventLoops(1).replicaTimeout(timeout).drainGrace(Duration.ZERO);
                        if (bodyBudget != Long.MAX_VALUE) {
                            network.maxBufferedBodyBytes(bodyBudget).maxBodyBytes((int) Math.min(bodyBudget, 2 << 20));
                        }
                    });
            started.add(KvServer.start(config.build(), store).toCompletableFuture());
        }
        for (CompletableFuture<KvServer> node : started) {
            nodes.add(node.get(60, TimeUnit.SECONDS));
        }
        return nodes;
    }

    private HttpResponse<String> put(String url, String key, byte[] value) throws Exception {
        return putAsync(url, key, value).get(30, TimeUnit.SECONDS);
    }

    private CompletableFuture<HttpResponse<String>> putAsync(String url, String key, byte[] value) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + key))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(value)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Retries a PUT refused with 503 as a client should, after its Retry-After; the final status. */
    private int putUntilTaken(String url, String key, byte[] value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<String> answer = put(url, key, value);
            if (answer.statusCode() != 503 || System.nanoTime() > deadline) {
                return answer.statusCode();
            }
            Thread.sleep(100); // a shortened Retry-After
        }
    }

    /** GET of {@code key}, or of /metrics if it is null. */
    private HttpResponse<String> get(String url, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + (key == null ? "/metrics" : "/v0/entity?id=" + key))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long shed(String metrics, String reason) {
        Matcher m = Pattern.compile("kv_requests_shed_total\\{reason=\"" + reason + "\"[^}]*} ([0-9.E]+)").matcher(metrics);
        assertTrue(m.find(), "no shed counter for " + reason + " in " + metrics);
        return (long) Double.parseDouble(m.group(1));
    }

    /**
     * A real store whose reads and writes, while the gate is shut, hold a storage thread until it opens:
     * a storage layer that cannot keep up, on demand.
     */
    private static final class GatedDao extends ForwardingDao {
        private final Dao store;
        private volatile CountDownLatch gate = new CountDownLatch(0);
        private final AtomicInteger waiting = new AtomicInteger();

        GatedDao(Dao store) {
            super(store);
            this.store = store;
        }

        void shut() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        /** Waits until {@code count} calls wait at the gate. */
        void awaitWaiting(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (waiting.get() < count) {
                assertTrue(System.nanoTime() < deadline, "no call reached the gate");
                Thread.sleep(5);
            }
        }

        private <T> CompletableFuture<T> gated(Executor mayBlock, Call<T> call) {
            CompletableFuture<T> result = new CompletableFuture<>();
            CountDownLatch shut = gate;
            if (shut.getCount() == 0) {
                try {
                    result.complete(call.run());
                } catch (IOException | RuntimeException e) {
                    result.completeExceptionally(e);
                }
                return result;
            }
            try {
                mayBlock.execute(() -> {
                    waiting.incrementAndGet();
                    try {
                        shut.await();
                        result.complete(call.run());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    } finally {
                        waiting.decrementAndGet();
                    }
                });
            } catch (RuntimeException rejected) {
                result.completeExceptionally(rejected);
            }
            return result;
        }

        private interface Call<T> {
            T run() throws IOException;
        }

        @Override
        public CompletableFuture<Entry> getAsync(byte[] key, Executor mayBlock) {
            return gated(mayBlock, () -> store.get(key));
        }

        @Override
        public CompletableFuture<Void> upsertAsync(Entry entry, Executor mayBlock) {
            return gated(mayBlock, () -> {
                store.upsert(entry);
                return null;
            });
        }
    }
}
