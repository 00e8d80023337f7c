package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A single node whose store holds a damaged table: the keys of the table's interval answer 500 naming
 * the damage, every other key is served, {@code /v0/status} and {@code /metrics} show the quarantine,
 * {@code POST /v0/admin/scrub} finds damage no request touched, and {@code POST /v0/admin/heal} serves an
 * interval again.
 */
class DamagedTableTest {
    private static final int KEYS = 100;

    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> send(KvServer server, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Options under which the store keeps the tables the test writes as they are: no compactions. */
    private static DaoOptions.Builder options(Path dir, FaultyStorage storage) {
        return DaoOptions.builder(dir).storage(storage).compactionTrigger(100).idleCompactionDelay(Duration.ZERO);
    }

    /**
     * Writes three tables: {@code a-*} and {@code m-*}, then {@code m-*} again, then {@code z-*}; returns their
     * file names, oldest first.
     */
    private static List<String> writeTables(Path dir, FaultyStorage storage) throws Exception {
        try (Dao dao = Engine.LSM.open(options(dir, storage).build())) {
            for (String[] table : new String[][] {{"a", "m"}, {"m"}, {"z"}}) {
                for (String prefix : table) {
                    for (int i = 0; i < KEYS; i++) {
                        String key = String.format("%s-%03d", prefix, i);
                        dao.upsert(Entry.value(b(key), b("value of " + key), 1));
                    }
                }
                dao.flush();
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".sst")).sorted().toList();
        }
    }

    @Test
    void aDamagedTableRefusesItsKeysWith500AndTheScrubFindsDamageNoRequestTouched(@TempDir Path dir) throws Exception {
        FaultyStorage storage = new FaultyStorage();
        Path store = dir.resolve("store");
        List<String> tables = writeTables(store, storage);
        assertEquals(3, tables.size(), tables.toString());
        String mid = tables.get(1);
        storage.flipBit(Pattern.quote(mid), 5, 2); // its first data block, read by the first request for m-000
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("node")).build(),
                Engine.LSM.open(options(store, storage).build())).toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            HttpResponse<String> damaged = send(server, "GET", "/v0/entity?id=m-000", null);
            assertEquals(500, damaged.statusCode(), damaged.body());
            assertTrue(damaged.body().contains(mid) && damaged.body().contains("unavailable"), damaged.body());
            assertEquals(500, send(server, "GET", "/v0/entity?id=m-050", null).statusCode());
            assertEquals("value of a-005", send(server, "GET", "/v0/entity?id=a-005", null).body());
            assertEquals("value of z-099", send(server, "GET", "/v0/entity?id=z-099", null).body());
            assertEquals(200, send(server, "GET", "/v0/entities?start=a-&end=b", null).statusCode());
            HttpResponse<String> range = send(server, "GET", "/v0/entities?start=a-050&end=z", null);
            assertEquals(500, range.statusCode(), range.body());
            assertTrue(range.body().contains(mid), range.body());
            assertEquals(201, send(server, "PUT", "/v0/entity?id=m-000", "new").statusCode(), "writes are taken");
            assertEquals(500, send(server, "GET", "/v0/entity?id=m-000", null).statusCode(), "reads still refused");

            JsonObject damage = new JsonObject(send(server, "GET", "/v0/status", null).body()).getJsonObject("damage");
            JsonArray quarantined = damage.getJsonArray("quarantined");
            assertEquals(1, quarantined.size(), damage.encode());
            assertEquals("[\"m-000\", \"m-099\\x00\")", quarantined.getJsonObject(0).getString("interval"));
            assertTrue(quarantined.getJsonObject(0).getString("file").endsWith("quarantine/" + mid));
            assertTrue(quarantined.getJsonObject(0).getString("reason").contains("checksum mismatch"));
            assertEquals(false, damage.getBoolean("stopped"));
            String metrics = send(server, "GET", "/metrics", null).body();
            assertTrue(metrics.contains("kv_storage_tables_quarantined 1.0"), metrics);

            // A bit flipped in the newest table after it was opened: the store's own reads do not see it, a scrub does.
            String newest = tables.get(2);
            storage.flipBit(Pattern.quote(newest), 3, 0);
            assertEquals("value of z-000", send(server, "GET", "/v0/entity?id=z-000", null).body());
            HttpResponse<String> scrub = send(server, "POST", "/v0/admin/scrub?bytes-per-s=0", null);
            assertEquals(200, scrub.statusCode(), scrub.body());
            JsonObject report = new JsonObject(scrub.body());
            assertEquals(2, report.getInteger("tablesChecked"), report.encode());
            assertTrue(report.getBoolean("finished"));
            assertEquals(1, report.getJsonArray("quarantined").size(), report.encode());
            assertTrue(report.getJsonArray("quarantined").getJsonObject(0).getString("file").endsWith(newest));
            assertEquals(500, send(server, "GET", "/v0/entity?id=z-000", null).statusCode());
            assertEquals("value of a-005", send(server, "GET", "/v0/entity?id=a-005", null).body());

            JsonObject after = new JsonObject(send(server, "GET", "/v0/status", null).body()).getJsonObject("damage");
            assertEquals(2, after.getJsonArray("quarantined").size(), after.encode());
            assertTrue(after.getLong("scrubbedBytes") > 0, after.encode());
            assertEquals(report.getLong("bytesChecked"), after.getJsonObject("scrub").getLong("bytesChecked"));
            metrics = send(server, "GET", "/metrics", null).body();
            assertTrue(metrics.contains("kv_storage_tables_quarantined 2.0"), metrics);
            assertTrue(metrics.contains("kv_storage_scrubbed_bytes_total " + after.getLong("scrubbedBytes") + ".0"),
                    metrics);
            assertEquals(405, send(server, "GET", "/v0/admin/scrub", null).statusCode());

            HttpResponse<String> unclear = send(server, "POST", "/v0/admin/heal?refetch=maybe", null);
            assertEquals(400, unclear.statusCode(), unclear.body());
            assertTrue(unclear.body().contains("refetch 'maybe' is neither true nor false"), unclear.body());
            // A lone node has no peer to refetch from: the operator accepts what it holds beneath the tables.
            HttpResponse<String> heal = send(server, "POST", "/v0/admin/heal?start=m&end=n", null);
            assertEquals(200, heal.statusCode(), heal.body());
            JsonObject healed = new JsonObject(heal.body());
            assertEquals(1, healed.getInteger("healed"));
            assertEquals(1, healed.getJsonArray("quarantined").size(), "the newest table's interval is still refused");
            assertEquals("new", send(server, "GET", "/v0/entity?id=m-000", null).body(), "written after the quarantine");
            assertEquals("value of m-050", send(server, "GET", "/v0/entity?id=m-050", null).body());
            assertEquals(500, send(server, "GET", "/v0/entity?id=z-000", null).statusCode());
            assertEquals(1, new JsonObject(send(server, "POST", "/v0/admin/heal", null).body()).getInteger("healed"));
            assertEquals(404, send(server, "GET", "/v0/entity?id=z-000", null).statusCode(),
                    "no table beneath held the z keys: healing a lone node's interval accepts their loss");
            assertTrue(send(server, "GET", "/metrics", null).body().contains("kv_storage_tables_quarantined 0.0"));
            assertEquals(405, send(server, "GET", "/v0/admin/heal", null).statusCode());
        } finally {
            server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
