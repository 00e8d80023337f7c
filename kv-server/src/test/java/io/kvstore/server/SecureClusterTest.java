package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.membership.Membership;
import io.kvstore.server.wire.Routes;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes with a cluster secret and mutual TLS, on both TLS engines: the protocol works as
 * without them, a node with another secret neither replicates nor is replicated to, and the secret
 * rotates node by node while every write keeps its quorum.
 */
@Tag("slow")
class SecureClusterTest {
    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private TestCluster secureCluster(Path secret, Path otherSecret) throws Exception {
        TestCertificates pki = TestCertificates.shared();
        Path admin = SecurityTest.secretFile(dir, "admin", SecurityTest.ADMIN_TOKEN);
        int[] started = new int[1];
        int[] engines = new int[1];
        return new TestCluster(dir, 3, b -> b
                .security(security -> security.tls(pki.nodeCert, pki.nodeKey).tlsCa(pki.caPem).adminTokenFile(admin))
                // Nodes on either TLS engine talk to each other.
                .security(security -> security.tlsEngine(io.kvstore.client.TlsEngine.values()[engines[0]++ % 2]))
                .antiEntropyInterval(Duration.ZERO)
                // The last node to start first gets the other secret, if any.
                .security(security -> security.clusterSecretFile(otherSecret != null && started[0]++ == 2 ? otherSecret : secret)),
                pki.trustingClient());
    }

    /**
     * The status of a PUT, sent again while it is 504 for up to 10 s: the peers of a node that just
     * started take a probe or two to see it up.
     */
    private static int putOnceAllAreUp(TestCluster cluster, int node, String query) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int status;
        while ((status = cluster.put(node, query, "v")) == 504 && System.nanoTime() < deadline) {
            Thread.sleep(Membership.PROBE_INTERVAL.toMillis() / 5);
        }
        return status;
    }

    @Test
    void threeNodesWithASecretAndMutualTlsServeTheProtocol() throws Exception {
        TestCluster cluster = secureCluster(SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET), null);
        try {
            assertEquals(201, putOnceAllAreUp(cluster, 0, "id=started&ack=3&from=3"));
            for (int i = 0; i < 30; i++) {
                assertEquals(201, cluster.put(i % 3, "id=key-" + i + "&ack=2&from=3", "v" + i));
            }
            for (int i = 0; i < 30; i++) {
                assertEquals("v" + i, text(cluster.get((i + 1) % 3, "id=key-" + i + "&ack=3&from=3")));
            }
            assertEquals(202, cluster.delete(1, "id=key-0&ack=3&from=3"));
            assertEquals(404, cluster.get(2, "id=key-0&ack=2&from=3").statusCode());
            cluster.stop(2);
            assertEquals(201, cluster.put(0, "id=while-down&ack=2&from=3", "w"));
            cluster.start(2);
            assertEquals(201, putOnceAllAreUp(cluster, 2, "id=after-restart&ack=3&from=3"));
            assertEquals("w", text(cluster.get(2, "id=while-down&ack=3&from=3")));
            assertTrue(cluster.localRange(1).contains("key-1"), "range reads over TLS");
            // Anti-entropy's internal routes are signed too: an operator's repair reaches every peer.
            HttpResponse<String> repair = cluster.http.send(HttpRequest.newBuilder(URI.create(cluster.url(0) + Routes.ADMIN_REPAIR))
                    .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + SecurityTest.ADMIN_TOKEN)
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, repair.statusCode(), repair.body());
        } finally {
            cluster.close();
        }
    }

    @Test
    void aNodeWithAnotherSecretNeitherReplicatesNorIsReplicatedTo() throws Exception {
        TestCluster cluster = secureCluster(SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET),
                SecurityTest.secretFile(dir, "other", SecurityTest.OTHER_SECRET));
        try {
            // Nodes 0 and 1 share the secret and reach a quorum; node 2 refuses what they send it.
            assertEquals(201, putOnceAllAreUp(cluster, 0, "id=k&ack=2&from=3"));
            assertEquals(504, cluster.put(0, "id=k2&ack=3&from=3", "v"));
            // Node 2's own requests to them are refused.
            assertEquals(504, cluster.put(2, "id=k3&ack=2&from=3", "v"));
            assertFalse(cluster.localRange(2).contains("k\nv"), "nothing node 0 sent was applied on node 2");
            assertFalse(cluster.localRange(0).contains("k3"), "nothing node 2 sent was applied on node 0");
            assertFalse(cluster.localRange(1).contains("k3"), "nothing node 2 sent was applied on node 1");
        } finally {
            cluster.close();
        }
    }

    @Test
    void theSecretRotatesNodeByNodeWithoutLosingAQuorum() throws Exception {
        Path secret = SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET);
        TestCluster cluster = secureCluster(secret, null);
        try {
            String old = SecurityTest.SECRET;
            String next = SecurityTest.OTHER_SECRET;
            int write = 0;
            // Accept both, then sign with the new one, then drop the old one: one node restarted at a time.
            for (String content : new String[] {old + "\n" + next, next + "\n" + old, next}) {
                Files.writeString(secret, content + "\n");
                for (int node = 0; node < 3; node++) {
                    cluster.stop(node);
                    int up = (node + 1) % 3;
                    assertEquals(201, cluster.put(up, "id=rolling-" + write + "&ack=2&from=3", "v"), "while node " + node + " restarts");
                    write++;
                    cluster.start(node);
                    for (int each = 0; each < 3; each++) {
                        assertEquals(201, putOnceAllAreUp(cluster, each, "id=all-" + write + "&ack=3&from=3"),
                                "every node reaches every other after node " + node + " took '" + content.replace('\n', '|') + "'");
                        write++;
                    }
                }
            }
        } finally {
            cluster.close();
        }
    }
}
