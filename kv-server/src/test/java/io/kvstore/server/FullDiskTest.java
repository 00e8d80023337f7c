package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose disk falls below its free-space floor: 507 for writes, reads going on, writes back once
 * space returns; so too a node started on a full disk. A node whose disk fails an fsync: 500 naming the file, reads going on, writes stopped
 * until a restart.
 */
class FullDiskTest {
    private static final long FLOOR = 10L << 20;

    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> send(KvServer server, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Waits until the node's status says writes are refused, or taken, as {@code refused}. */
    private void awaitRefusing(KvServer server, boolean refused) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (new JsonObject(send(server, "GET", "/v0/status", null).body()).getJsonObject("disk").getBoolean("writesRefused")
                != refused) {
            assertTrue(System.nanoTime() < deadline, "writes never " + (refused ? "refused" : "taken again"));
            Thread.sleep(20);
        }
    }

    @Test
    void belowTheFloorWritesAre507ReadsGoOnAndWritesResumeWithoutARestart(@TempDir Path dir) throws Exception {
        FaultyStorage storage = new FaultyStorage();
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("node")).build(),
                Engine.LSM.open(DaoOptions.builder(dir.resolve("store")).storage(storage).minFreeBytes(FLOOR).build()))
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            assertEquals(201, send(server, "PUT", "/v0/entity?id=before", "kept").statusCode());

            storage.reportFreeBytes(FLOOR - 1);
            awaitRefusing(server, true);
            HttpResponse<String> put = send(server, "PUT", "/v0/entity?id=during", "lost");
            assertEquals(507, put.statusCode(), put.body());
            assertTrue(put.body().contains((FLOOR - 1) + " bytes free") && put.body().contains("--min-free-bytes"), put.body());
            assertEquals(507, send(server, "DELETE", "/v0/entity?id=before", null).statusCode());
            HttpResponse<String> get = send(server, "GET", "/v0/entity?id=before", null);
            assertEquals(200, get.statusCode());
            assertEquals("kept", get.body(), "reads go on and the refused delete changed nothing");
            assertEquals(404, send(server, "GET", "/v0/entity?id=during", null).statusCode());
            JsonObject disk = new JsonObject(send(server, "GET", "/v0/status", null).body()).getJsonObject("disk");
            assertEquals(FLOOR - 1, disk.getLong("freeBytes"));
            assertEquals(FLOOR, disk.getLong("minFreeBytes"));
            assertTrue(disk.getString("reason").contains("below the store's floor"), disk.encode());
            assertEquals(0, disk.getLong("reservedBytes"), disk.encode());
            assertFalse(disk.getBoolean("compactionWaitsForSpace"), disk.encode());
            String metrics = send(server, "GET", "/metrics", null).body();
            assertTrue(metrics.contains("kv_disk_writes_refused 1.0"), metrics);
            assertTrue(metrics.contains("kv_disk_reserved_bytes 0.0"), metrics);
            assertTrue(metrics.contains("kv_disk_compaction_waiting 0.0"), metrics);

            storage.reportFreeBytes(-1);
            awaitRefusing(server, false);
            assertEquals(201, send(server, "PUT", "/v0/entity?id=after", "taken").statusCode());
            assertTrue(send(server, "GET", "/metrics", null).body().contains("kv_disk_writes_refused 0.0"));
        } finally {
            server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFailedFsyncStopsWritesWith500NamingTheFileWhileReadsGoOn(@TempDir Path dir) throws Exception {
        FaultyStorage storage = new FaultyStorage();
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("node")).build(),
                Engine.LSM.open(DaoOptions.builder(dir.resolve("store")).storage(storage).syncPolicy(SyncPolicy.EVERY_WRITE)
                        .minFreeBytes(0).build()))
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            assertEquals(201, send(server, "PUT", "/v0/entity?id=before", "kept").statusCode());
            assertTrue(send(server, "GET", "/metrics", null).body().contains("kv_disk_writes_stopped 0.0"));

            storage.failNth(Op.FSYNC, ".*\\.wal", 1);
            HttpResponse<String> failed = send(server, "PUT", "/v0/entity?id=failed", "unacknowledged");
            assertEquals(500, failed.statusCode(), failed.body());
            HttpResponse<String> put = send(server, "PUT", "/v0/entity?id=during", "refused");
            assertEquals(500, put.statusCode(), put.body());
            assertTrue(put.body().contains("stopped taking writes") && put.body().matches("(?s).*\\d+\\.wal.*"), put.body());
            HttpResponse<String> get = send(server, "GET", "/v0/entity?id=before", null);
            assertEquals(200, get.statusCode());
            assertEquals("kept", get.body(), "reads go on");
            JsonObject disk = new JsonObject(send(server, "GET", "/v0/status", null).body()).getJsonObject("disk");
            assertTrue(disk.getString("writesStopped").matches("(?s)fsync of .*\\d+\\.wal failed.*"), disk.encode());
            assertFalse(disk.getBoolean("writesRefused"), "not a full disk: " + disk.encode());
            assertTrue(send(server, "GET", "/metrics", null).body().contains("kv_disk_writes_stopped 1.0"));
        } finally {
            server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aNodeStartedOnAFullDiskServesReadsAnswers507AndTakesWritesOnceSpaceReturns(@TempDir Path dir) throws Exception {
        FaultyStorage storage = new FaultyStorage();
        DaoOptions options = DaoOptions.builder(dir.resolve("store")).storage(storage).syncPolicy(SyncPolicy.EVERY_WRITE)
                .minFreeBytes(0).build();
        Dao before = Engine.LSM.open(options);
        try {
            before.upsert(Entry.value("kept".getBytes(StandardCharsets.UTF_8), "in the log".getBytes(StandardCharsets.UTF_8),
                    new HybridClock().now()));
            storage.powerCut(); // the write is left in the log, for the open to replay
        } finally {
            try {
                before.close();
            } catch (IOException expected) {
                // the power is off
            }
        }
        storage.powerOn();
        storage.noSpace(".*", 1);
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("node")).build(),
                Engine.LSM.open(options)).toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            HttpResponse<String> get = send(server, "GET", "/v0/entity?id=kept", null);
            assertEquals(200, get.statusCode(), get.body());
            assertEquals("in the log", get.body());
            HttpResponse<String> put = send(server, "PUT", "/v0/entity?id=during", "refused");
            assertEquals(507, put.statusCode(), put.body());
            awaitRefusing(server, true);

            storage.repair();
            assertEquals(201, send(server, "PUT", "/v0/entity?id=after", "taken").statusCode());
            awaitRefusing(server, false);
            assertEquals("taken", send(server, "GET", "/v0/entity?id=after", null).body());
        } finally {
            server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
