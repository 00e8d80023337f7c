package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.membership.ClusterMapStore;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.server.security.LogLimiter;
import io.kvstore.server.wire.Routes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standalone nodes that try to {@code --join} a cluster they do not belong to: with another cluster
 * secret, without TLS into a TLS cluster, with TLS into a plain one. Each newcomer exits with a status and
 * a message that say what to fix, the members' maps stay as they were, nothing reaches the newcomer, and
 * the members log why, without a line per request.
 */
@Tag("slow")
class SecureJoinTest {
    private static final String JVM = "-XX:TieredStopAtLevel=1";
    @TempDir
    static Path dir;
    private static TestCertificates pki;
    private static Path secret;
    private static Path otherSecret;
    private static final List<String> members = new ArrayList<>();
    private static final List<ChildServer> tlsMembers = new ArrayList<>();
    private static ChildServer plainMember;
    private static String plainUrl;
    private static HttpClient http;

    private static List<String> tlsFlags() {
        return List.of("--tls-cert", pki.nodeCert.toString(), "--tls-key", pki.nodeKey.toString(),
                "--tls-ca", pki.caPem.toString());
    }

    private static String[] flags(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    @BeforeAll
    static void startMembers() throws Exception {
        pki = TestCertificates.shared();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(pki.trustingClient())
                .connectTimeout(Duration.ofSeconds(5)).build();
        secret = SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET + "\n");
        otherSecret = SecurityTest.secretFile(dir, "other", SecurityTest.OTHER_SECRET + "\n");
        List<Integer> ports = List.of(TestCluster.freePort(), TestCluster.freePort());
        for (int port : ports) {
            members.add("https://127.0.0.1:" + port);
        }
        for (int i = 0; i < ports.size(); i++) {
            tlsMembers.add(ChildServer.launch(ports.get(i), dir.resolve("member-" + i), JVM, flags(tlsFlags(),
                    "--cluster", String.join(",", members), "--self", members.get(i), "--cluster-secret-file", secret.toString(),
                    "--event-loops", "1", "--anti-entropy-interval-s", "0")));
        }
        int plainPort = TestCluster.freePort();
        plainUrl = "http://127.0.0.1:" + plainPort;
        plainMember = ChildServer.launch(plainPort, dir.resolve("plain"), JVM, "--self", plainUrl,
                "--cluster-secret-file", secret.toString(), "--event-loops", "1");
        for (int i = 0; i < ports.size(); i++) {
            tlsMembers.get(i).awaitLine("listening on port " + ports.get(i));
        }
        plainMember.awaitLine("listening on port " + plainPort);
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> put = send(members.get(i % 2) + "/v0/entity?id=k" + i + "&ack=1", "PUT", "v" + i);
            assertEquals(201, put.statusCode(), put.body());
        }
    }

    @AfterAll
    static void stopMembers() throws Exception {
        List<ChildServer> all = new ArrayList<>(tlsMembers);
        all.add(plainMember);
        for (ChildServer member : all) {
            if (member != null) {
                member.process.destroyForcibly();
                member.process.waitFor();
            }
        }
    }

    private static HttpResponse<String> send(String url, String method, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertMapsUnchanged() throws Exception {
        for (String member : members) {
            HttpResponse<String> answer = send(member + "/v0/cluster", "GET", null);
            assertEquals(200, answer.statusCode(), answer.body());
            ClusterMap map = ClusterMapCodec.fromJson(answer.body());
            assertEquals(1, map.epoch(), member + " holds the map it was seeded with: " + map);
            assertEquals(members, map.urls(), member + ": " + map);
        }
    }

    /** A node on a new port and data directory that joins through {@code member}; returns once it exited. */
    private static Newcomer join(String name, String member, boolean tls, String... more) throws Exception {
        int port = TestCluster.freePort();
        Path data = dir.resolve(name);
        List<String> flags = new ArrayList<>(tls ? tlsFlags() : List.of());
        flags.addAll(List.of("--self", (tls ? "https" : "http") + "://127.0.0.1:" + port, "--join", member,
                "--event-loops", "1"));
        flags.addAll(List.of(more));
        ChildServer child = ChildServer.launch(port, data, JVM, flags.toArray(new String[0]));
        int status = child.awaitExit();
        String log = child.log();
        assertFalse(log.contains("listening on port"), log);
        assertFalse(Files.exists(data.resolve(ClusterMapStore.FILE)), "the newcomer never took the cluster's map");
        return new Newcomer((tls ? "https" : "http") + "://127.0.0.1:" + port, status, log);
    }

    private record Newcomer(String url, int status, String log) {
    }

    @Test
    void aNodeWithAnotherSecretOrNoneIsRefusedAndTheMembersSayWhyWithoutALinePerRequest() throws Exception {
        Newcomer newcomer = join("other-secret", members.get(0), true, "--cluster-secret-file", otherSecret.toString());
        assertEquals(1, newcomer.status(), newcomer.log());
        assertTrue(newcomer.log().contains("could not start: java.lang.IllegalStateException: cannot join through "
                + members.get(0) + ": it refused this node's request for its cluster map with 403 (the signature does not"
                + " match: the sender holds another cluster secret"), newcomer.log());
        assertTrue(newcomer.log().contains("check that this node's --cluster-secret-file holds the cluster's secret"),
                newcomer.log());
        assertMapsUnchanged();

        Newcomer withoutSecret = join("no-secret", members.get(1), true);
        assertEquals(1, withoutSecret.status(), withoutSecret.log());
        assertTrue(withoutSecret.log().contains("it refused this node's request for its cluster map with 401 (internal"
                + " routes need a request signed with the cluster secret); this node has no --cluster-secret-file: start it"
                + " with the cluster's secret"), withoutSecret.log());
        assertMapsUnchanged();

        ChildServer member = tlsMembers.get(0);
        member.awaitLine("(node " + newcomer.url() + "): 403 the signature does not match");
        // A node that keeps trying with the wrong secret: one line per LogLimiter interval, not one per request.
        long start = System.nanoTime();
        HttpClient mutual = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(pki.nodeClient()).build();
        for (int i = 0; i < 50; i++) {
            HttpResponse<String> ping = mutual.send(SecurityTest.signed(members.get(0) + Routes.PING, "GET", null, null,
                    SecurityTest.OTHER_SECRET, System.currentTimeMillis()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, ping.statusCode(), ping.body());
        }
        long intervals = (System.nanoTime() - start) / LogLimiter.INTERVAL_NANOS;
        int logged = member.countLines("Authenticator", "refused", "another cluster secret");
        assertTrue(logged >= 1 && logged <= 2 + intervals, logged + " lines for 51 refusals in " + (intervals + 1)
                + " logging intervals:\n" + member.log());
    }

    @Test
    void aNodeWithoutTlsCannotJoinATlsClusterAndIsToldWhy() throws Exception {
        Newcomer https = join("plain-to-https", members.get(1), false, "--cluster-secret-file", secret.toString());
        assertEquals(2, https.status(), https.log());
        assertTrue(https.log().startsWith("error: --join " + members.get(1) + ": this node has no --tls-cert, so it speaks"
                + " plain HTTP and cannot join a cluster of https:// nodes"), https.log());

        String plainUrlOfTlsPort = members.get(1).replace("https://", "http://");
        Newcomer plain = join("plain-to-tls-port", plainUrlOfTlsPort, false, "--cluster-secret-file", secret.toString());
        assertEquals(1, plain.status(), plain.log());
        assertTrue(plain.log().contains("cannot join through " + plainUrlOfTlsPort + ": it closed the connection without an"
                + " answer, as a TLS port does to plain HTTP: if the cluster's nodes are https://, start this node with"
                + " --tls-cert"), plain.log());
        tlsMembers.get(1).awaitLine("a TLS handshake on this node's port failed");
        assertMapsUnchanged();
    }

    @Test
    void aTlsNodeCannotJoinAPlainClusterAndIsToldWhy() throws Exception {
        Newcomer http = join("tls-to-http", plainUrl, true, "--cluster-secret-file", secret.toString());
        assertEquals(2, http.status(), http.log());
        assertTrue(http.log().startsWith("error: --join " + plainUrl + ": this node has --tls-cert, so it speaks TLS and"
                + " cannot join a cluster of http:// nodes"), http.log());

        String tlsUrlOfPlainPort = plainUrl.replace("http://", "https://");
        Newcomer tls = join("tls-to-plain-port", tlsUrlOfPlainPort, true, "--cluster-secret-file", secret.toString());
        assertEquals(1, tls.status(), tls.log());
        assertTrue(tls.log().contains("cannot join through " + tlsUrlOfPlainPort + ": the TLS handshake failed ("), tls.log());
        assertTrue(tls.log().contains("if the cluster's nodes are http:// (no TLS), start this node without --tls-cert"),
                tls.log());
        HttpResponse<String> map = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(plainUrl + "/v0/cluster"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(List.of(plainUrl), ClusterMapCodec.fromJson(map.body()).urls());
    }
}
