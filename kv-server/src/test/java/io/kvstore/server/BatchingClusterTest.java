package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.config.KvServerConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes taking concurrent writes, then reads, at {@code ack=3&from=3}, so that their event
 * loops batch the calls to each peer: every write is acknowledged and every node holds every key,
 * every read answers its own key's value, with and without a cluster secret (a batch is signed like
 * any internode request).
 */
class BatchingClusterTest {
    private static final int CONCURRENT = 300;
    private static final int MAX_ROUNDS = 10;

    @TempDir
    Path dir;

    @Test
    void concurrentCallsAreBatchedAndReachEveryReplica() throws Exception {
        callUntilBatched(b -> b);
    }

    @Test
    void batchesAreSignedWithAClusterSecret() throws Exception {
        Path secret = SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET);
        callUntilBatched(b -> b.security(security -> security.clusterSecretFile(secret)));
    }

    private void callUntilBatched(UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        TestCluster cluster = new TestCluster(dir.resolve("nodes"), 3, tweak);
        try {
            int written = 0;
            double batches = 0;
            for (int round = 0; round < MAX_ROUNDS && batches == 0; round++) {
                List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
                for (int i = 0; i < CONCURRENT; i++) {
                    int key = written + i;
                    answers.add(cluster.http.sendAsync(HttpRequest.newBuilder(URI.create(cluster.url(key % 3)
                                    + "/v0/entity?id=k" + key + "&ack=3&from=3"))
                            .PUT(HttpRequest.BodyPublishers.ofString("v" + key)).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> answer : answers) {
                    HttpResponse<String> response = answer.get(60, TimeUnit.SECONDS);
                    assertEquals(201, response.statusCode(), response.body());
                }
                written += CONCURRENT;
                batches = 0;
                for (int node = 0; node < 3; node++) {
                    batches += metric(cluster, node, "kv_replica_batches_total{operation=\"write\"}");
                }
            }
            assertTrue(batches > 0, "no write went in a batch in " + written + " concurrent writes");
            for (int node = 0; node < 3; node++) {
                String local = cluster.localRange(node);
                for (int key = 0; key < written; key++) {
                    assertTrue(local.contains("k" + key + "\nv" + key), "node " + node + " lacks k" + key);
                }
            }
            double batched = 0;
            for (int node = 0; node < 3; node++) {
                batched += metric(cluster, node, "kv_replica_batched_calls_total{operation=\"write\"}");
            }
            assertTrue(batched >= 2 * batches, batched + " writes in " + batches + " batches");

            double readBatches = 0;
            for (int round = 0; round < MAX_ROUNDS && readBatches == 0; round++) {
                List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
                for (int key = 0; key < written; key++) {
                    answers.add(cluster.http.sendAsync(HttpRequest.newBuilder(URI.create(cluster.url(key % 3)
                                    + "/v0/entity?id=k" + key + "&ack=3&from=3")).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                for (int key = 0; key < written; key++) {
                    HttpResponse<String> response = answers.get(key).get(60, TimeUnit.SECONDS);
                    assertEquals(200, response.statusCode(), "k" + key + ": " + response.body());
                    assertEquals("v" + key, response.body());
                }
                for (int node = 0; node < 3; node++) {
                    readBatches += metric(cluster, node, "kv_replica_batches_total{operation=\"read\"}");
                }
            }
            assertTrue(readBatches > 0, "no read went in a batch");
        } finally {
            cluster.close();
        }
    }

    private static double metric(TestCluster cluster, int node, String name) throws Exception {
        HttpResponse<byte[]> scraped = cluster.send(node, "GET", "/metrics", null);
        assertEquals(200, scraped.statusCode());
        return PrometheusText.parse(new String(scraped.body(), StandardCharsets.UTF_8)).value(name);
    }
}
