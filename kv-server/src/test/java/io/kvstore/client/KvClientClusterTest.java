package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against three real nodes on loopback. */
@Tag("slow")
class KvClientClusterTest {
    @TempDir
    Path dir;

    @Test
    void keysOfEveryByteValueAndAwkwardCharactersRoundTripAndMeanTheSameBytesToTheServer() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3); KvClient client = KvClient.connect(nodes.urls.toArray(new String[0]))) {
            List<byte[]> keys = new ArrayList<>();
            for (int b = 0; b < 256; b++) {
                keys.add(new byte[] {(byte) b});
                keys.add(new byte[] {'k', (byte) b, 'k'});
            }
            for (String text : List.of("a b", "a+b", "100%", "%20", "a/b?c=d&e#f", "ключ", "☃ snow")) {
                keys.add(text.getBytes(StandardCharsets.UTF_8));
            }
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                writes.add(client.put(keys.get(i), ("v" + i).getBytes(StandardCharsets.UTF_8)).toCompletableFuture());
            }
            CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).get();
            for (int i = 0; i < keys.size(); i++) {
                Optional<byte[]> value = client.blocking().get(keys.get(i));
                assertEquals("v" + i, new String(value.orElseThrow(), StandardCharsets.UTF_8), "key #" + i);
            }
            // The server reads the same bytes a hand-written request names: a space is %20, '+' a plus.
            HttpClient http = HttpClient.newHttpClient();
            int space = indexOf(keys, "a b");
            assertEquals("v" + space, raw(http, nodes.urls.get(1) + "/v0/entity?id=a%20b"));
            assertEquals("v" + indexOf(keys, "a+b"), raw(http, nodes.urls.get(2) + "/v0/entity?id=a+b"));
            assertEquals("v" + indexOf(keys, "ключ"), raw(http, nodes.urls.get(0) + "/v0/entity?id=%D0%BA%D0%BB%D1%8E%D1%87"));
            client.blocking().delete("a b");
            assertTrue(client.blocking().getString("a b").isEmpty(), "deleted reads as empty");
            assertEquals("v" + indexOf(keys, "+"), client.blocking().getString("+").orElseThrow());
        }
    }

    @Test
    void ackAndFromApplyPerCallAndTheClientPlacesKeysAsTheNodesDo() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, b -> b.virtualNodes(7));
             KvClient client = KvClient.connect(nodes.urls.toArray(new String[0]))) {
            for (int from = 1; from <= 3; from++) {
                for (int i = 0; i < 20; i++) {
                    byte[] key = ("f" + from + "-" + i).getBytes(StandardCharsets.UTF_8);
                    CallOptions options = CallOptions.DEFAULT.ack(from).from(from);
                    client.blocking().put(key, new byte[] {(byte) i}, options);
                    int copies = 0;
                    for (String node : nodes.urls) {
                        copies += holds(client, node, key) ? 1 : 0;
                    }
                    assertEquals(from, copies, new String(key, StandardCharsets.UTF_8));
                    if (from == 1) {
                        assertTrue(holds(client, client.nodeFor(key, options), key),
                                "the node the client chose (as its partitioner, 7 virtual nodes, says) holds the only copy");
                    }
                }
            }
        }
    }

    @Test
    void errorsOfRealNodesMapToTheirExceptions() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, b -> b.network(network -> network.maxBodyBytes(1024)));
             KvClient client = KvClient.connect(nodes.urls.toArray(new String[0]))) {
            BlockingKvClient blocking = client.blocking();
            assertTrue(blocking.get("absent".getBytes(StandardCharsets.UTF_8)).isEmpty());
            assertEquals(413, assertThrows(InvalidRequestException.class,
                    () -> blocking.put("big".getBytes(StandardCharsets.UTF_8), new byte[4096])).status());
            assertEquals(400, assertThrows(InvalidRequestException.class,
                    () -> blocking.put("k".getBytes(StandardCharsets.UTF_8), new byte[1], CallOptions.DEFAULT.from(5))).status());
            nodes.stop(2);
            assertThrows(QuorumNotReachedException.class,
                    () -> blocking.put("k".getBytes(StandardCharsets.UTF_8), new byte[1], CallOptions.DEFAULT.ack(3)));
            for (int i = 0; i < 50; i++) {
                blocking.put("two-up-" + i, "v"); // 2 of 3 by default: every key, whichever its primary
                assertEquals("v", blocking.getString("two-up-" + i).orElseThrow());
            }
        }
    }

    @Test
    void aRangeWithASlowConsumerHoldsBoundedMemoryAndEndsInOrder() throws Exception {
        int entries = 24_000;
        byte[] value = new byte[1000];
        try (Nodes nodes = new Nodes(dir, 1); KvClient client = KvClient.connect(nodes.urls.get(0))) {
            fill(client, "r", entries, value);
            try (RangeIterator range = client.localRange(nodes.urls.get(0), "r".getBytes(StandardCharsets.UTF_8), null)) {
                assertTrue(range.hasNext());
                long waited = System.nanoTime();
                while (!range.paused()) { // 24 MB are on their way: reading must pause long before
                    assertTrue(System.nanoTime() - waited < 20_000_000_000L, "reading never paused");
                    Thread.onSpinWait();
                }
                long bound = RangeIterator.HIGH_WATER_BYTES + (256 << 10);
                assertTrue(range.bufferedBytes() < bound, "buffered " + range.bufferedBytes());
                int seen = 0;
                long most = 0;
                while (range.hasNext()) {
                    KeyValue entry = range.next();
                    assertEquals(String.format("r%06d", seen), new String(entry.key(), StandardCharsets.UTF_8));
                    assertArrayEquals(value, entry.value());
                    most = Math.max(most, range.bufferedBytes());
                    seen++;
                }
                assertEquals(entries, seen);
                assertTrue(most < bound, "buffered at most " + most);
                assertFalse(range.hasNext());
            }
        }
    }

    @Test
    void closingARangeEarlyReleasesItsConnection() throws Exception {
        try (Nodes nodes = new Nodes(dir, 1); KvClient client = KvClient.connect(nodes.urls.get(0))) {
            fill(client, "e", 24_000, new byte[1000]); // more than socket buffers hold, so the node's stream waits
            HttpClient http = HttpClient.newHttpClient();
            try (RangeIterator range = client.localRange(nodes.urls.get(0), "e".getBytes(StandardCharsets.UTF_8), null)) {
                assertTrue(range.hasNext());
                assertTrue(raw(http, nodes.urls.get(0) + "/v0/status").contains("\"openRangeIterators\" : 1"));
            }
            long waited = System.nanoTime();
            while (!raw(http, nodes.urls.get(0) + "/v0/status").contains("\"openRangeIterators\" : 0")) {
                assertTrue(System.nanoTime() - waited < 10_000_000_000L, "the node's iterator stayed open");
                Thread.onSpinWait();
            }
            InvalidRequestException refused = assertThrows(InvalidRequestException.class, () -> {
                try (RangeIterator range = client.localRange(nodes.urls.get(0), "z".getBytes(StandardCharsets.UTF_8),
                        new byte[] {'z'})) {
                    range.hasNext(); // start == end is fine; an end over the key limit is not:
                }
                try (RangeIterator range = client.localRange(nodes.urls.get(0), "a".getBytes(StandardCharsets.UTF_8),
                        "a".repeat(5000).getBytes(StandardCharsets.UTF_8))) {
                    range.hasNext();
                }
            });
            assertEquals(400, refused.status());
        }
    }

    /** Writes keys {@code prefix000000...} with {@code value}, 256 at a time. */
    private static void fill(KvClient client, String prefix, int count, byte[] value) throws Exception {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            writes.add(client.put(String.format("%s%06d", prefix, i).getBytes(StandardCharsets.UTF_8), value).toCompletableFuture());
            if (writes.size() == 256 || i == count - 1) {
                CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).get();
                writes.clear();
            }
        }
    }

    private static boolean holds(KvClient client, String node, byte[] key) {
        try (RangeIterator range = client.localRange(node, key, null)) {
            return range.hasNext() && java.util.Arrays.equals(key, range.next().key());
        }
    }

    private static int indexOf(List<byte[]> keys, String text) {
        for (int i = 0; i < keys.size(); i++) {
            if (java.util.Arrays.equals(keys.get(i), text.getBytes(StandardCharsets.UTF_8))) {
                return i;
            }
        }
        throw new AssertionError(text);
    }

    private static String raw(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
