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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica restarted with a table whose index was damaged on disk: it starts, quarantines the table and
 * refuses its keys, quorum reads through it are answered correctly by the other replicas, and one
 * repair from it refetches the keys from its peers and serves them again.
 */
@Tag("slow")
class DamagedReplicaTest {
    private static final int KEYS = 300;

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

    @Test
    void aReplicaRestartedWithADamagedTableServesQuorumReadsAndHoldsEveryKeyAgainAfterOneRepair() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < KEYS; i++) {
                assertEquals(201, cluster.put(i % 3, String.format("id=key-%03d&ack=3", i), "old-" + i));
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

            HttpResponse<byte[]> repair = cluster.send(2, "POST", Routes.ADMIN_REPAIR, null);
            assertEquals(200, repair.statusCode(), text(repair));
            assertTrue(new JsonObject(text(repair)).getLong("keysReceived") > 0, text(repair));
            assertEquals(0, damage(cluster, 2).getJsonArray("quarantined").size(), "healed by the repair");
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
