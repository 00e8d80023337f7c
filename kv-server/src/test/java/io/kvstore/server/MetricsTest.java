package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.core.Compression;
import io.kvstore.server.config.BackgroundBudgetMode;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.metrics.MetricsHandler;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /metrics parsed, and its counters moved by exactly what a known sequence of requests does. */
class MetricsTest {
    private static final String BLOCK_CACHE_HITS = "kv_storage_block_cache_requests_total{result=\"hit\"}";
    private static final String BLOCK_CACHE_MISSES = "kv_storage_block_cache_requests_total{result=\"miss\"}";

    @TempDir
    Path dir;
    TestCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private PrometheusText scrape(int node) throws Exception {
        HttpResponse<byte[]> response = cluster.send(node, "GET", "/metrics", null);
        assertEquals(200, response.statusCode());
        assertEquals(MetricsHandler.CONTENT_TYPE, response.headers().firstValue("Content-Type").orElse(""));
        return PrometheusText.parse(new String(response.body(), StandardCharsets.UTF_8));
    }

    /**
     * Scrapes until the request counter of {@code route} reaches {@code at least} (a request is counted once its
     * response has been written, which may be just after the client has read it).
     */
    private PrometheusText scrapeOnce(int node, String route, double atLeast) throws Exception {
        return scrapeUntil(node, metrics -> metrics.sum("vertx_http_server_requests_total", "route=\"" + route + "\"") >= atLeast);
    }

    /** Scrapes until {@code done} holds or 30 s have passed, returning the last scrape for the assertions to judge. */
    private PrometheusText scrapeUntil(int node, Predicate<PrometheusText> done) throws Exception {
        PrometheusText metrics = scrape(node);
        for (long deadline = System.nanoTime() + 30_000_000_000L; !done.test(metrics) && System.nanoTime() < deadline; ) {
            Thread.sleep(20);
            metrics = scrape(node);
        }
        return metrics;
    }

    private static String requests(String route, String method, int code) {
        return "vertx_http_server_requests_total{code=\"" + code + "\",method=\"" + method + "\",route=\"" + route + "\"}";
    }

    @Test
    void requestsByRouteMethodAndStatusMoveByExactlyTheRequestsMade() throws Exception {
        cluster = new TestCluster(dir, 1);
        PrometheusText before = scrape(0);
        for (int i = 0; i < 7; i++) {
            assertEquals(201, cluster.put(0, "id=k" + i, "v" + i));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(200, cluster.get(0, "id=k" + i).statusCode());
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(404, cluster.get(0, "id=absent" + i).statusCode());
        }
        assertEquals(202, cluster.delete(0, "id=k0"));
        assertEquals(400, cluster.get(0, "id=").statusCode());
        assertEquals(400, cluster.send(0, "GET", "/no/such/path", null).statusCode());
        assertEquals(200, cluster.send(0, "GET", Routes.CLUSTER, null).statusCode());
        PrometheusText after = scrapeOnce(0, Routes.ENTITY, before.sum("vertx_http_server_requests_total",
                "route=\"/v0/entity\"") + 17);

        String entity = Routes.ENTITY;
        assertEquals(7, delta(before, after, requests(entity, "PUT", 201)));
        assertEquals(5, delta(before, after, requests(entity, "GET", 200)));
        assertEquals(3, delta(before, after, requests(entity, "GET", 404)));
        assertEquals(1, delta(before, after, requests(entity, "DELETE", 202)));
        assertEquals(1, delta(before, after, requests(entity, "GET", 400)));
        assertEquals(1, delta(before, after, requests(Routes.UNKNOWN, "GET", 400)));
        assertEquals(1, delta(before, after, requests(Routes.CLUSTER, "GET", 200)));
        // The latency histogram counts the same requests, and its buckets are cumulative.
        String latency = "vertx_http_server_response_time_seconds_count{code=\"201\",method=\"PUT\",route=\"/v0/entity\"}";
        assertEquals(7, delta(before, after, latency));
        String plusInf = "vertx_http_server_response_time_seconds_bucket{code=\"201\",le=\"+Inf\",method=\"PUT\",route=\"/v0/entity\"}";
        assertEquals(after.value(latency), after.value(plusInf));

        // Coordinator outcomes: every one of those 15 coordinated reads and writes succeeded.
        assertEquals(8, delta(before, after, "kv_coordinator_requests_total{method=\"GET\",outcome=\"ok\"}"));
        assertEquals(7, delta(before, after, "kv_coordinator_requests_total{method=\"PUT\",outcome=\"ok\"}"));
        assertEquals(1, delta(before, after, "kv_coordinator_requests_total{method=\"DELETE\",outcome=\"ok\"}"));
        assertEquals(0, delta(before, after, "kv_coordinator_requests_total{method=\"PUT\",outcome=\"timeout\"}"));
    }

    @Test
    void requestsRefusedBeforeRoutingAndUnusualMethodsAreCountedUnderBoundedLabels() throws Exception {
        cluster = new TestCluster(dir, 1, b -> {
            try {
                Path secret = SecurityTest.secretFile(dir, "secret", "a-cluster-secret-of-some-length\n");
                return b.security(security -> security.clusterSecretFile(secret));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        PrometheusText before = scrape(0);
        String key = InternalCodec.encodeKey("k".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 2; i++) {
            assertEquals(401, cluster.send(0, "PUT", "/internal/v0/entity?key=" + key + "&ts=1", new byte[1]).statusCode());
        }
        assertEquals(405, cluster.send(0, "PROPFIND", "/v0/entity?id=k", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entity/" + "x".repeat(100), null).statusCode());
        PrometheusText after = scrapeOnce(0, Routes.UNKNOWN,
                before.sum("vertx_http_server_requests_total", "route=\"other\"") + 1);

        assertEquals(2, delta(before, after, requests(Routes.INTERNAL_ENTITY, "PUT", 401)));
        assertEquals(1, delta(before, after, requests(Routes.ENTITY, "other", 405)));
        assertEquals(1, delta(before, after, requests(Routes.UNKNOWN, "GET", 400)));
        assertFalse(after.samples().keySet().stream().anyMatch(name -> name.contains("PROPFIND") || name.contains("xxxx")),
                "neither a raw method nor a raw path is a label");
    }

    @Test
    void storageMetricsFollowTheStore() throws Exception {
        cluster = new TestCluster(dir, 1, b -> b.store(store -> store.flushThresholdBytes(64 << 10)));
        PrometheusText empty = scrape(0);
        assertEquals(0, empty.value("kv_storage_memtable_bytes"));
        assertEquals(0, empty.value("kv_storage_tables{level=\"0\"}"));
        assertEquals(0, empty.value("kv_storage_flushes_total"));
        assertTrue(empty.has("kv_storage_wal_syncs_total"));
        assertTrue(empty.has("kv_storage_bloom_negatives_total"));
        assertTrue(empty.has("kv_storage_write_stalls_total"));
        assertEquals(0, empty.value("kv_storage_background_errors_total"));
        assertTrue(empty.has("kv_storage_compactions_pending"));
        String value = "x".repeat(1000);
        for (int i = 0; i < 10; i++) {
            assertEquals(201, cluster.put(0, "id=k" + i, value));
        }
        PrometheusText written = scrape(0);
        assertTrue(written.value("kv_storage_memtable_bytes") >= 10 * 1000, "values in the memtable");
        // Past the flush threshold: the next write switches memtables and a table follows.
        for (int i = 0; i < 100; i++) {
            assertEquals(201, cluster.put(0, "id=more" + i, value));
        }
        PrometheusText flushed = scrapeOnceFlushed(0);
        assertEquals(1, flushed.value("kv_storage_flushes_total"));
        assertEquals(1, flushed.value("kv_storage_tables{level=\"0\"}"));
        assertEquals(flushed.value("kv_storage_flushed_bytes_total"), flushed.value("kv_storage_tables_size_bytes"));
        // A read of a key the table's range holds but its filter rules out skips it without a block read.
        double negatives = flushed.value("kv_storage_bloom_negatives_total");
        assertEquals(404, cluster.get(0, "id=more5x").statusCode());
        assertEquals(negatives + 1, scrape(0).value("kv_storage_bloom_negatives_total"));
    }

    @Test
    void theBackgroundBudgetItsSharesAndWhatCompactionsDrewAreReported() throws Exception {
        cluster = new TestCluster(dir, 1, b -> b.backgroundBudgetMinBytesPerSecond(2 << 20)
                .store(store -> store.flushThresholdBytes(64 << 10).compactionTrigger(2)));
        PrometheusText start = scrape(0);
        double max = (KvServerConfig.DEFAULT_COMPACTION_BYTES_PER_SECOND + KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND
                + ReplicationOptions.DEFAULT_HINT_REPLAY_BYTES_PER_SECOND + KvServerConfig.DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND);
        assertEquals(max, start.value("kv_background_budget_max_bytes_per_second"));
        assertEquals(2 << 20, start.value("kv_background_budget_min_bytes_per_second"));
        double budget = start.value("kv_background_budget_bytes_per_second");
        assertTrue(budget >= 2 << 20 && budget <= max, "budget " + budget);
        for (String work : List.of("compaction", "stream", "hints", "repair", "scrub")) {
            assertTrue(start.value("kv_background_rate_bytes_per_second{work=\"" + work + "\"}") > 0, work);
            assertTrue(start.has("kv_background_consumed_bytes_total{work=\"" + work + "\"}"), work);
            assertTrue(start.has("kv_background_backlog_bytes{work=\"" + work + "\"}"), work);
        }
        assertEquals(KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND, start.value("kv_background_cap_bytes_per_second{work=\"stream\"}"));
        assertEquals(0, start.value("kv_background_backlog_bytes{work=\"compaction\"}"));
        assertTrue(start.has("kv_background_backoffs_total"));
        String value = "x".repeat(1000);
        for (int i = 0; i < 400; i++) {
            assertEquals(201, cluster.put(0, "id=k" + i, value));
        }
        PrometheusText compacted = scrapeUntil(0, metrics -> metrics.value("kv_storage_compactions_total") >= 1
                && metrics.value("kv_background_consumed_bytes_total{work=\"compaction\"}") > 0);
        assertTrue(compacted.value("kv_background_consumed_bytes_total{work=\"compaction\"}") > 0, "compactions drew");
        assertTrue(compacted.value("kv_background_consumed_bytes_total{work=\"compaction\"}")
                <= compacted.value("kv_storage_compacted_bytes_total"), "no more than they wrote");
        assertTrue(compacted.value("kv_background_foreground_latency_baseline_seconds") > 0, "the controller saw the writes");
    }

    @Test
    void aFixedBudgetRunsEachKindAtItsOwnRate() throws Exception {
        cluster = new TestCluster(dir, 1, b -> b.backgroundBudget(BackgroundBudgetMode.FIXED));
        PrometheusText metrics = scrape(0);
        assertEquals(KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND, metrics.value("kv_background_rate_bytes_per_second{work=\"stream\"}"));
        assertEquals(KvServerConfig.DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND,
                metrics.value("kv_background_rate_bytes_per_second{work=\"repair\"}"));
        assertEquals(0, metrics.value("kv_background_rate_bytes_per_second{work=\"scrub\"}"), "its own rate only");
        assertTrue(Double.isNaN(metrics.value("kv_background_foreground_latency_baseline_seconds")), "no controller");
    }

    @Test
    void blockCacheMetricsCountAMissThenAHit() throws Exception {
        cluster = new TestCluster(dir, 1, b -> b
                .store(store -> store.flushThresholdBytes(64 << 10).compression(Compression.LZ4).blockCacheBytes(1 << 20)));
        PrometheusText empty = scrape(0);
        assertEquals(1 << 20, empty.value("kv_storage_block_cache_capacity_bytes"));
        assertEquals(0, empty.value("kv_storage_block_cache_bytes"));
        assertEquals(0, empty.value(BLOCK_CACHE_HITS));
        assertEquals(0, empty.value(BLOCK_CACHE_MISSES));
        assertEquals(0, empty.value("kv_storage_block_cache_evictions_total"));
        String value = "x".repeat(1000);
        // Past the flush threshold: the first keys reach a table, the only place a read finds them.
        for (int i = 0; i < 110; i++) {
            assertEquals(201, cluster.put(0, "id=k" + i, value));
        }
        PrometheusText flushed = scrapeOnceFlushed(0);
        assertEquals(1, flushed.value("kv_storage_flushes_total"));
        assertEquals(0, flushed.value(BLOCK_CACHE_MISSES));

        assertEquals(200, cluster.get(0, "id=k0").statusCode());
        PrometheusText first = scrape(0);
        assertEquals(1, delta(flushed, first, BLOCK_CACHE_MISSES));
        assertEquals(0, delta(flushed, first, BLOCK_CACHE_HITS));
        assertTrue(first.value("kv_storage_block_cache_bytes") > 0, "the block read is cached");
        assertEquals(200, cluster.get(0, "id=k0").statusCode());
        PrometheusText second = scrape(0);
        assertEquals(0, delta(first, second, BLOCK_CACHE_MISSES));
        assertEquals(1, delta(first, second, BLOCK_CACHE_HITS));
    }

    @Test
    void aPeerThatIsDownShowsInOutcomesAndPeerLatency() throws Exception {
        // Without hints, whose replays would be peer calls too.
        cluster = new TestCluster(dir, 2, b -> b.replication(replication -> replication.hints(false)));
        cluster.stop(1);
        // A stopped node drains first and is then not asked at all; this peer is down without having said so.
        assertEquals(204, cluster.http.send(HttpRequest.newBuilder(URI.create(cluster.url(0) + "/internal/v0/draining"))
                .DELETE().header(Headers.NODE, cluster.url(1)).build(), HttpResponse.BodyHandlers.ofByteArray()).statusCode());
        PrometheusText before = scrape(0);
        assertEquals(504, cluster.put(0, "id=k&ack=2&from=2", "v"));
        assertEquals(201, cluster.put(0, "id=k&ack=1&from=2", "v"));
        String peer = "peer=\"" + cluster.url(1) + "\"";
        String[] failedWrites = {peer, "operation=\"write\"", "outcome=\"failed\""};
        // One ack answers the second PUT; the refused call to the stopped peer may be timed just after.
        double failedBefore = before.sum("kv_replica_request_seconds_count", failedWrites);
        PrometheusText after = scrapeUntil(0,
                metrics -> metrics.sum("kv_replica_request_seconds_count", failedWrites) >= failedBefore + 2);
        assertEquals(1, delta(before, after, "kv_coordinator_requests_total{method=\"PUT\",outcome=\"not_enough_replicas\"}"));
        assertEquals(1, delta(before, after, "kv_coordinator_requests_total{method=\"PUT\",outcome=\"ok\"}"));
        assertEquals(2, after.sum("kv_replica_request_seconds_count", failedWrites) - failedBefore);
        assertFalse(after.has("kv_replica_request_seconds_count{operation=\"write\",outcome=\"ok\",peer=\"" + cluster.url(0) + "\"}"),
                "the node's own replica is no peer");
    }

    @Test
    void readRepairHintsAndAntiEntropyAreCounted() throws Exception {
        // No periodic anti-entropy: a run between the two writes and the read would leave nothing to repair.
        cluster = new TestCluster(dir, 2, b -> b.antiEntropyInterval(Duration.ZERO));
        String key = InternalCodec.encodeKey("k".getBytes(StandardCharsets.UTF_8));
        // Node 0 holds a newer version than node 1: a read of both repairs node 1, once.
        assertEquals(201, cluster.send(0, "PUT", "/internal/v0/entity?key=" + key + "&ts=200", "new".getBytes(StandardCharsets.UTF_8)).statusCode());
        assertEquals(201, cluster.send(1, "PUT", "/internal/v0/entity?key=" + key + "&ts=100", "old".getBytes(StandardCharsets.UTF_8)).statusCode());
        // A meter whose object only the registry held weakly reads 0 after a collection.
        System.gc();
        PrometheusText before = scrape(0);
        assertEquals("new", new String(cluster.get(0, "id=k&ack=2&from=2").body(), StandardCharsets.UTF_8));
        // The repair is counted once its write is acknowledged, which may be just after the answer.
        double repairsBefore = before.value("kv_read_repairs_total");
        PrometheusText repaired = scrapeUntil(0, metrics -> metrics.value("kv_read_repairs_total") >= repairsBefore + 1);
        assertEquals(1, delta(before, repaired, "kv_read_repairs_total"));
        // A key only node 0 holds: one exchange with its one peer sends it.
        String lone = InternalCodec.encodeKey("lone".getBytes(StandardCharsets.UTF_8));
        assertEquals(201, cluster.send(0, "PUT", "/internal/v0/entity?key=" + lone + "&ts=300", "v".getBytes(StandardCharsets.UTF_8)).statusCode());
        assertEquals(200, cluster.send(0, "POST", "/v0/admin/repair", new byte[0]).statusCode());
        PrometheusText exchanged = scrape(0);
        assertEquals(1, delta(repaired, exchanged, "kv_repair_exchanges_total{outcome=\"ok\"}"));
        assertEquals(1, delta(repaired, exchanged, "kv_repair_keys_sent_total"));
        assertEquals(0, delta(repaired, exchanged, "kv_repair_keys_received_total"));
        // A write its peer missed is kept as a hint.
        cluster.stop(1);
        assertEquals(201, cluster.put(0, "id=hinted&ack=1&from=2", "v"));
        PrometheusText hinted = scrapeUntil(0, metrics -> metrics.value("kv_hints_total{event=\"stored\"}") >= 1);
        assertEquals(1, delta(exchanged, hinted, "kv_hints_total{event=\"stored\"}"));
    }

    @Test
    void peersAndTheClusterMapAreReportedAsEachNodeSeesThem() throws Exception {
        cluster = new TestCluster(dir, 2, b -> b.antiEntropyInterval(Duration.ZERO));
        PrometheusText first = scrape(0);
        PrometheusText second = scrape(1);
        assertEquals(1, first.value("kv_cluster_map_epoch"));
        assertEquals(2, first.value("kv_cluster_map_nodes{state=\"normal\"}"));
        assertEquals(0, first.value("kv_cluster_map_nodes{state=\"joining\"}") + first.value("kv_cluster_map_nodes{state=\"leaving\"}"));
        // One map, one fingerprint: what tells nodes on different maps apart.
        assertEquals(first.value("kv_cluster_map_fingerprint"), second.value("kv_cluster_map_fingerprint"));
        assertTrue(first.value("kv_cluster_map_fingerprint") > 0);
        String peer = "{peer=\"" + cluster.url(1) + "\"}";
        assertEquals(1, first.value("kv_peer_up" + peer));
        assertEquals(0, first.value("kv_hints_pending" + peer));
        assertFalse(first.has("kv_peer_up{peer=\"" + cluster.url(0) + "\"}"), "a node is not its own peer");
        assertFalse(first.has("kv_tls_certificate_expiry_seconds{role=\"node\"}"), "no TLS, no certificate");
        // The peer stops: once probes fail it is down, and a write it misses waits for it as a hint.
        cluster.stop(1);
        assertEquals(201, cluster.put(0, "id=hinted&ack=1&from=2", "v"));
        PrometheusText down = scrapeUntil(0, metrics -> metrics.value("kv_peer_up" + peer) == 0
                && metrics.value("kv_hints_pending" + peer) >= 1);
        assertEquals(0, down.value("kv_peer_up" + peer));
        assertEquals(1, down.value("kv_hints_pending" + peer));
        assertTrue(down.value("kv_hints_pending_size_bytes" + peer) > 0);
    }

    @Test
    void withMetricsOffTheRouteIs404AndRequestsStillWork() throws Exception {
        cluster = new TestCluster(dir, 1, b -> b.metrics(false));
        assertEquals(201, cluster.put(0, "id=k", "v"));
        assertEquals(404, cluster.send(0, "GET", "/metrics", null).statusCode());
        assertEquals(405, cluster.send(0, "POST", "/metrics", new byte[0]).statusCode());
    }

    @Test
    void statusReportsTheStoreFromItsProperties() throws Exception {
        cluster = new TestCluster(dir, 1);
        assertEquals(201, cluster.put(0, "id=k", "value"));
        String status = new String(cluster.send(0, "GET", "/v0/status", null).body(), StandardCharsets.UTF_8);
        io.vertx.core.json.JsonObject json = new io.vertx.core.json.JsonObject(status);
        io.vertx.core.json.JsonObject storage = json.getJsonObject("storage");
        assertTrue(storage.getLong("memtableBytes") >= "value".length(), status);
        assertEquals(0, storage.getLong("tableBytes"), status);
        assertEquals(0, json.getLong("dataBytes"), status);
    }

    /** Scrapes until the store has flushed a table: flushes run in the background at a low CPU priority. */
    private PrometheusText scrapeOnceFlushed(int node) throws Exception {
        return scrapeUntil(node, metrics -> metrics.value("kv_storage_flushes_total") >= 1);
    }

    private static double delta(PrometheusText before, PrometheusText after, String key) {
        assertTrue(after.has(key), () -> key + " missing from " + after.samples().keySet());
        return after.value(key) - before.value(key);
    }
}
