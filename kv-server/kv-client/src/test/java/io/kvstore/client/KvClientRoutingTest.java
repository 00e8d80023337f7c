package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.core.testing.Ports;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where requests go and how answers map, against fake nodes that record every request: the exact
 * placement is checked against the partitioner computed independently from the same node list.
 */
class KvClientRoutingTest {

    @Test
    void eachRequestGoesToTheFirstReplicaOfItsKeyAsTheNodesPlaceIt() throws Exception {
        try (FakeNodes nodes = new FakeNodes(3, 64, request -> request.response().setStatusCode(201).end());
             KvClient client = KvClient.builder().seeds(nodes.urls).build()) {
            Partitioner partitioner = Partitioners.create("ring", nodes.urls, 64);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                byte[] key = ("user:" + i).getBytes(StandardCharsets.UTF_8);
                client.blocking().put(key, new byte[] {1});
                expected.add(partitioner.primary(key) + ": PUT /v0/entity?id=user%3A" + i);
            }
            assertEquals(expected, new ArrayList<>(nodes.received));
            int[] perNode = new int[3];
            for (String line : nodes.received) {
                perNode[line.charAt(0) - '0']++;
            }
            assertTrue(perNode[0] > 20 && perNode[1] > 20 && perNode[2] > 20, "every node is some keys' primary");
        }
    }

    @Test
    void aDeadReplicaIsSkippedForTheNextLiveReplicaOfTheKey() throws Exception {
        try (FakeNodes nodes = new FakeNodes(3, 64, request -> request.response().setStatusCode(201).end());
             KvClient client = KvClient.builder().seeds(nodes.urls).build()) {
            Partitioner partitioner = Partitioners.create("ring", nodes.urls, 64);
            nodes.kill(0);
            int checked = 0;
            for (int i = 0; i < 100; i++) {
                byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                int[] replicas = partitioner.replicas(key, 3);
                nodes.received.clear();
                client.blocking().put(key, new byte[0], CallOptions.DEFAULT.ack(1).from(2));
                int expected = replicas[0] != 0 ? replicas[0] : replicas[1];
                assertEquals(List.of(expected + ": PUT /v0/entity?id=k" + i + "&ack=1&from=2"), new ArrayList<>(nodes.received));
                checked += replicas[0] == 0 ? 1 : 0;
            }
            assertTrue(checked > 10, "enough keys had the dead node as primary: " + checked);
        }
    }

    @Test
    void aDeadSeedDoesNotStopTheClient() throws Exception {
        try (FakeNodes nodes = new FakeNodes(2, 16, request -> request.response().setStatusCode(202).end())) {
            String dead = "http://127.0.0.1:" + Ports.free();
            try (KvClient client = KvClient.builder().seeds(dead, nodes.urls.get(1)).build()) {
                assertEquals(nodes.urls, client.nodes(), "the map comes from the live seed");
                client.blocking().delete("x");
                assertEquals(1, nodes.received.size());
            }
        }
    }

    @Test
    void statusCodesBecomeResultsAndTypedExceptions() throws Exception {
        try (FakeNodes nodes = new FakeNodes(1, 1, request -> {
            String id = request.getParam("id");
            int status = Integer.parseInt(id);
            if (status == 503) {
                request.response().putHeader("Retry-After", "7");
            }
            request.response().setStatusCode(status).end(status == 200 ? "value" : "reason " + status);
        }); KvClient client = KvClient.builder().seeds(nodes.urls).build()) {
            BlockingKvClient blocking = client.blocking();
            assertEquals("value", new String(blocking.get(key("200")).orElseThrow(), StandardCharsets.UTF_8));
            assertTrue(blocking.get(key("404")).isEmpty());
            assertThrows(QuorumNotReachedException.class, () -> blocking.get(key("504")));
            OverloadedException overloaded = assertThrows(OverloadedException.class, () -> blocking.put(key("503"), new byte[0]));
            assertEquals(Duration.ofSeconds(7), overloaded.retryAfter());
            assertEquals(nodes.urls.get(0), overloaded.node());
            assertEquals(400, assertThrows(InvalidRequestException.class, () -> blocking.delete(key("400"))).status());
            assertEquals(413, assertThrows(InvalidRequestException.class, () -> blocking.put(key("413"), new byte[0])).status());
            KvClientException other = assertThrows(KvClientException.class, () -> blocking.get(key("500")));
            assertEquals(500, other.status());
            assertTrue(other.getMessage().contains("reason 500"), other.getMessage());
            assertThrows(KvClientException.class, () -> blocking.put(key("200"), new byte[0]), "a PUT expects 201");
        }
    }

    @Test
    void aByteBufferValueIsSentFromItsPositionToItsLimitAndKeepsItsPosition() throws Exception {
        ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
        try (FakeNodes nodes = new FakeNodes(1, 1, request -> request.body().onSuccess(body -> {
            bodies.add(body.toString(StandardCharsets.UTF_8));
            request.response().setStatusCode(201).end();
        })); KvClient client = KvClient.builder().seeds(nodes.urls).build()) {
            ByteBuffer value = ByteBuffer.wrap(key("--value--"), 2, 5);
            client.put(key("a"), value, CallOptions.DEFAULT).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertEquals(List.of("value"), new ArrayList<>(bodies));
            assertEquals(2, value.position());
            assertEquals(7, value.limit());
        }
    }

    @Test
    void roundRobinSpreadsOverTheSeedsWithoutReadingAMap() throws Exception {
        try (FakeNodes nodes = new FakeNodes(3, 1, request -> request.response().setStatusCode(404).end());
             KvClient client = KvClient.builder().seeds(nodes.urls).routing(KvClient.Routing.ROUND_ROBIN).build()) {
            for (int i = 0; i < 6; i++) {
                assertTrue(client.blocking().get(key("a")).isEmpty());
            }
            int[] perNode = new int[3];
            for (String line : nodes.received) {
                perNode[line.charAt(0) - '0']++;
            }
            assertEquals(List.of(2, 2, 2), List.of(perNode[0], perNode[1], perNode[2]));
        }
    }

    @Test
    void aRequestReadsTheMapAgainOnceItIsOlderThanTheRefreshInterval() throws Exception {
        try (FakeNodes nodes = new FakeNodes(2, 16, request -> request.response().setStatusCode(201).end());
             KvClient aging = KvClient.builder().seeds(nodes.urls).refreshInterval(Duration.ofNanos(1)).build()) {
            assertTrue(nodes.mapReads.tryAcquire(1, 5, TimeUnit.SECONDS), "the map is read at build");
            aging.blocking().put(key("a"), new byte[] {1});
            assertTrue(nodes.mapReads.tryAcquire(1, 5, TimeUnit.SECONDS), "a request on an aged map reads it again");
        }
        try (FakeNodes nodes = new FakeNodes(2, 16, request -> request.response().setStatusCode(201).end());
             KvClient fresh = KvClient.builder().seeds(nodes.urls).build()) {
            for (int i = 0; i < 50; i++) {
                fresh.blocking().put(key("k" + i), new byte[] {1});
            }
            fresh.refresh().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertEquals(2, nodes.mapReads.availablePermits(), "read at build and on refresh(), not by requests on a fresh map");
        }
    }

    @Test
    void optionsAreCheckedBeforeAnythingIsSent() {
        assertThrows(IllegalArgumentException.class, () -> CallOptions.DEFAULT.ack(3).from(2));
        assertThrows(IllegalArgumentException.class, () -> CallOptions.DEFAULT.ack(0));
        assertThrows(IllegalArgumentException.class, () -> CallOptions.DEFAULT.ttlSeconds(0));
        assertThrows(IllegalArgumentException.class, () -> CallOptions.DEFAULT.ttlSeconds(CallOptions.MAX_TTL_SECONDS + 1));
        assertEquals("&ack=1&from=2&ttl=60", CallOptions.DEFAULT.from(2).ack(1).ttlSeconds(60).putQuery());
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().seeds("localhost:8080"));
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().build());
    }

    @Test
    void noLiveSeedIsAClearError() throws Exception {
        String dead = "http://127.0.0.1:" + Ports.free();
        KvClientException error = assertThrows(KvClientException.class,
                () -> KvClient.builder().seeds(dead).timeout(Duration.ofSeconds(2)).build());
        assertTrue(error.getMessage().contains(dead), error.getMessage());
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRequestRefusedAsOverloadedIsSentOnceMoreToAnotherNode() throws Exception {
        int[] ports = new int[2];
        try (FakeNodes nodes = new FakeNodes(2, 8, request -> {
            boolean first = request.localAddress().port() == ports[0];
            if (first || request.getParam("id").startsWith("refused")) {
                request.response().setStatusCode(503).putHeader("Retry-After", "0").end("overloaded, retry later");
            } else {
                request.response().setStatusCode(201).end();
            }
        })) {
            for (int i = 0; i < 2; i++) {
                String url = nodes.urls.get(i);
                ports[i] = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
            }
            try (KvClient client = KvClient.builder().seeds(nodes.urls).routing(KvClient.Routing.ROUND_ROBIN).build()) {
                for (int i = 0; i < 4; i++) {
                    client.blocking().put(key("k" + i), new byte[0]); // every one that went to node 0 went on to node 1
                }
                long refusedThenSent = nodes.received.stream().filter(r -> r.startsWith("0: ")).count();
                assertTrue(refusedThenSent >= 1, "round robin sent some to the refusing node: " + nodes.received);
                assertEquals(4 + refusedThenSent, nodes.received.size(), "one more request per refusal: " + nodes.received);

                nodes.received.clear();
                OverloadedException refused = assertThrows(OverloadedException.class,
                        () -> client.blocking().put(key("refused"), new byte[0]));
                assertEquals(2, nodes.received.size(), "one retry at most, on the other node: " + nodes.received);
                assertTrue(nodes.received.stream().anyMatch(r -> r.startsWith("0: "))
                        && nodes.received.stream().anyMatch(r -> r.startsWith("1: ")), nodes.received.toString());
                assertEquals(Duration.ZERO, refused.retryAfter());
            }
        }
    }
}
