package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.client.CallOptions;
import io.kvstore.client.KvClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every node of a three-node cluster restarted in turn with SIGTERM under quorum writers and readers
 * (the Java client, 2 of 3): no request fails, every acknowledged write reads back, and while a node is
 * down its peers hold it as draining (it told them before it stopped), not as failed.
 */
@Tag("slow")
class RollingRestartTest {
    private static final CallOptions QUORUM = CallOptions.DEFAULT.ack(2).from(3);
    private static final int WRITERS = 3;
    private static final int KEYS_PER_WRITER = 100;

    @TempDir
    Path dir;

    @Test
    void aRollingRestartUnderQuorumTrafficFailsNoRequestAndLosesNoWrite() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3, "--replication-factor", "3");
             KvClient client = KvClient.connect(cluster.url(0), cluster.url(1), cluster.url(2))) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong requests = new AtomicLong();
            List<String> failures = new CopyOnWriteArrayList<>();
            Map<String, Long> acknowledged = new ConcurrentHashMap<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread thread = new Thread(() -> write(client, writer, stop, requests, failures, acknowledged), "writer-" + w);
                thread.start();
                writers.add(thread);
            }
            for (int node = 0; node < 3; node++) {
                awaitRequests(requests, 200);
                cluster.terminate(node);
                for (int peer = 0; peer < 3; peer++) {
                    if (peer != node) {
                        assertEquals("draining", cluster.peer(peer, node).getString("state"),
                                "node " + peer + " leaves the stopped node " + node + " out as draining");
                    }
                }
                awaitRequests(requests, 100); // writes hinted for it while it is away
                cluster.start(node);
                for (int peer = 0; peer < 3; peer++) {
                    if (peer != node) {
                        int watcher = peer;
                        int restarted = node;
                        ChildCluster.await("node " + watcher + " finds node " + restarted + " serving again",
                                () -> "up".equals(cluster.peer(watcher, restarted).getString("state")));
                    }
                }
            }
            awaitRequests(requests, 200);
            stop.set(true);
            for (Thread thread : writers) {
                thread.join();
            }
            assertEquals(List.of(), failures, "no request failed through " + requests.get() + " requests");
            for (Map.Entry<String, Long> write : acknowledged.entrySet()) {
                long read = sequence(client.blocking().get(bytes(write.getKey()), QUORUM));
                assertTrue(read >= write.getValue(), write.getKey() + ": acknowledged " + write.getValue() + ", read " + read);
            }
        }
    }

    /**
     * One writer: PUTs to its own keys with a rising sequence, and after each acknowledged PUT reads one
     * of its keys at quorum, which must show that key's last acknowledged sequence or a later one.
     */
    private static void write(KvClient client, int writer, AtomicBoolean stop, AtomicLong requests, List<String> failures,
                              Map<String, Long> acknowledged) {
        long sequence = 0;
        while (!stop.get()) {
            sequence++;
            String key = "w" + writer + "-" + (sequence % KEYS_PER_WRITER);
            String checked = "w" + writer + "-" + ((sequence * 7) % KEYS_PER_WRITER);
            try {
                client.blocking().put(bytes(key), bytes(Long.toString(sequence)), QUORUM);
                acknowledged.put(key, sequence);
                requests.incrementAndGet();
                Long expected = acknowledged.get(checked);
                long read = sequence(client.blocking().get(bytes(checked), QUORUM));
                requests.incrementAndGet();
                if (expected != null && read < expected) {
                    failures.add("stale read of " + checked + ": " + read + " after " + expected + " was acknowledged");
                }
            } catch (RuntimeException e) {
                failures.add(key + ": " + e);
            }
        }
    }

    private static void awaitRequests(AtomicLong requests, long more) throws Exception {
        long target = requests.get() + more;
        ChildCluster.await(more + " more requests", () -> requests.get() >= target);
    }

    private static long sequence(Optional<byte[]> value) {
        return value.map(bytes -> Long.parseLong(new String(bytes, StandardCharsets.UTF_8))).orElse(0L);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
