package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.wire.Routes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A replica restarted with a table whose index was damaged on disk: it starts, quarantines the table and
 * refuses its keys, quorum reads through it are answered correctly by the other replicas, and one
 * repair, or one heal, from it refetches the keys from its peers and serves them again; the refetch
 * compares the keys of the refused interval only, not those around it.
 */
@Tag("slow")
class DamagedReplicaTest {
    private static final int KEYS = 300;
    /** Keys written once, before the damaged table, outside its interval. */
    private static final int AROUND = 100;
    /** The damaged table's keys: key-000 to key-298 (key-299 is neither written again nor deleted). */
    private static final int IN_INTERVAL = 299;

    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static JsonObject damage(TestCluster cluster, int node) throws Exception {
        return new JsonObject(text(cluster.send(node, "GET", Routes.STATUS, null))).getJsonObject("damage");
    }

    /** What each key reads as once the writes of the test are done: its value, or null if deleted. */
    private static String expected(int i) {
        if (i % 10 == 1) {
            return null;
        }
        return (i % 2 == 0 ? "new-" : "old-") + i;
    }

    /** Flips a byte in the middle of the index block of the table at {@code file}, on disk. */
    private static void damageIndex(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer footer = ByteBuffer.wrap(bytes, bytes.length - 56, 56).slice().order(ByteOrder.LITTLE_ENDIAN);
        long indexOffset = footer.getLong(12);
        int indexSize = footer.getInt(20);
        bytes[(int) (indexOffset + indexSize / 2)] ^= 0x20;
        Files.write(file, bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {Routes.ADMIN_REPAIR, Routes.ADMIN_HEAL})
    void aReplicaRestartedWithADamagedTableServesQuorumReadsAndHoldsEveryKeyAgainAfterOneRequest(String route) throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(201, cluster.put(i % 3, String.format("id=key-%03d&ack=3", i), "old-" + i));
            }
            for (int i = 0; i < AROUND; i++) {
                assertEquals(201, cluster.put(i % 3, String.format("id=z-%03d&ack=3", i), "z-" + i));
            }
            cluster.stop(2); // its first table: the old values
            cluster.start(2);
            for (int i = 0; i < KEYS; i++) {
                String id = String.format("id=key-%03d&ack=3", i);
                if (i % 10 == 1) {
                    assertEquals(202, cluster.delete(i % 3, id));
                } else if (i % 2 == 0) {
                    assertEquals(201, cluster.put(i % 3, id, "new-" + i));
                }
            }
            cluster.stop(2); // its second table, over the first: the new values and the tombstones
            List<Path> tables;
            try (Stream<Path> files = Files.list(dir.resolve("node-2"))) {
                tables = files.filter(f -> f.getFileName().toString().endsWith(".sst")).sorted().toList();
            }
            assertEquals(2, tables.size(), tables.toString());
            damageIndex(tables.get(1));
            cluster.start(2);

            JsonArray quarantined = damage(cluster, 2).getJsonArray("quarantined");
            assertEquals(1, quarantined.size(), quarantined.encode());
            assertTrue(quarantined.getJsonObject(0).getString("reason").contains("index block checksum mismatch"),
                    quarantined.encode());
            HttpResponse<byte[]> local = cluster.send(2, "GET", "/v0/entities?start=key-", null);
            assertEquals(500, local.statusCode(), "the node's own range crosses the refused interval");
            assertTrue(text(local).contains(tables.get(1).getFileName().toString()), text(local));

            for (int i = 0; i < KEYS; i++) {
                HttpResponse<byte[]> read = cluster.get(2, String.format("id=key-%03d", i));
                String want = expected(i);
                assertEquals(want == null ? 404 : 200, read.statusCode(), "key-" + i + ": " + text(read));
                if (want != null) {
                    assertEquals(want, text(read), "key-" + i + " read through the damaged replica");
                }
            }

            HttpResponse<byte[]> repair = cluster.send(2, "POST", route, null);
            assertEquals(200, repair.statusCode(), text(repair));
            JsonObject answer = new JsonObject(text(repair));
            JsonObject heal = route.equals(Routes.ADMIN_HEAL) ? answer.getJsonObject("refetch").getJsonObject("heal")
                    : answer.getJsonObject("heal");
            assertEquals(1, heal.getInteger("intervals"), text(repair));
            assertEquals(1, heal.getInteger("healed"), text(repair));
            assertEquals(2, heal.getJsonArray("exchanges").size(), "the interval refetched from each peer: " + text(repair));
            assertEquals(2 * IN_INTERVAL, heal.getLong("treeKeys"),
                    "each peer's tree holds the interval's keys and none of the " + AROUND + " around it: " + text(repair));
            assertTrue(heal.getLong("keysReceived") > 0, text(repair));
            assertEquals(0, damage(cluster, 2).getJsonArray("quarantined").size(), "healed by the " + route);
            String healed = cluster.localRange(2);
            assertEquals(cluster.localRange(0), healed, "node 2 holds every key again, deletes included");
            for (int i = 0; i < KEYS; i++) {
                String want = expected(i);
                assertEquals(want != null, healed.contains(String.format("key-%03d\n", i)), "key-" + i);
            }
        } finally {
            cluster.close();
        }
    }
}
