package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.client.KvClient;
import io.kvstore.client.TlsEngine;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.wire.Routes;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One real node with TLS, mutual TLS for internal routes and a cluster secret: clients need no
 * certificate, internal routes need one the CA issued, a certificate from elsewhere fails its handshake;
 * each TLS engine serves all of it.
 */
@Tag("slow")
class TlsTest {
    @TempDir
    Path dir;
    private TestCertificates pki;
    private KvServer server;

    @BeforeEach
    void start() throws Exception {
        pki = TestCertificates.shared();
        Path secret = SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET);
        server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("data"))
                .network(network -> network.eventLoops(1))
                .security(security -> security.tls(pki.nodeCert, pki.nodeKey).tlsCa(pki.caPem).clusterSecretFile(secret))
                .build())
                .toCompletableFuture().get();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop().toCompletableFuture().get();
    }

    private String url(String target) {
        return "https://127.0.0.1:" + server.port() + target;
    }

    private static HttpClient client(SSLContext tls) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    private HttpResponse<String> signedPing(HttpClient http) throws Exception {
        return http.send(SecurityTest.signed(url(Routes.PING), "GET", null, null, SecurityTest.SECRET,
                System.currentTimeMillis()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void clientsSpeakTlsWithoutACertificate() throws Exception {
        HttpClient http = client(pki.trustingClient());
        assertEquals(201, http.send(HttpRequest.newBuilder(URI.create(url("/v0/entity?id=k")))
                .PUT(HttpRequest.BodyPublishers.ofString("v")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(url("/v0/entity?id=k"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("v", get.body());
    }

    @Test
    void theJavaClientSpeaksTlsAndReadsRangesOverIt() throws Exception {
        try (io.kvstore.client.KvClient client = io.kvstore.client.KvClient.builder()
                .seeds("https://127.0.0.1:" + server.port()).trustedCa(pki.caPem)
                .routing(io.kvstore.client.KvClient.Routing.ROUND_ROBIN).build()) {
            client.blocking().put("a", "1");
            client.blocking().put("b", "2");
            assertEquals("1", client.blocking().getString("a").orElseThrow());
            try (io.kvstore.client.RangeIterator range = client.range("a".getBytes(java.nio.charset.StandardCharsets.UTF_8), null)) {
                assertTrue(range.hasNext());
                range.next();
                assertTrue(range.hasNext());
                range.next();
            }
        }
    }

    @Test
    void internalRoutesNeedACertificateFromTheCaEvenWhenSigned() throws Exception {
        HttpResponse<String> withoutCertificate = signedPing(client(pki.trustingClient()));
        assertEquals(401, withoutCertificate.statusCode());
        assertTrue(withoutCertificate.body().contains("client certificate"), withoutCertificate.body());
        assertEquals(204, signedPing(client(pki.nodeClient())).statusCode());
    }

    @Test
    void aCertificateFromAnotherCaFailsItsHandshakeAndTheNodeCarriesOn() throws Exception {
        assertThrows(IOException.class, () -> signedPing(client(pki.strangerClient())));
        assertThrows(IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/v0/status")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()), "plain HTTP on a TLS port");
        assertEquals(204, signedPing(client(pki.nodeClient())).statusCode());
    }

    @ParameterizedTest
    @EnumSource(TlsEngine.class)
    void eachTlsEngineServesClientsPeersAndTheJavaClient(TlsEngine engine) throws Exception {
        assertEquals(engine, engine.effective(), "the engine's library loads on this machine");
        Path secret = SecurityTest.secretFile(dir, "engine-secret", SecurityTest.SECRET);
        KvServer node = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve(engine.id()))
                .network(network -> network.eventLoops(1))
                .security(security -> security.tls(pki.nodeCert, pki.nodeKey).tlsCa(pki.caPem).tlsEngine(engine)
                        .clusterSecretFile(secret)).build())
                .toCompletableFuture().get();
        try {
            String base = "https://127.0.0.1:" + node.port();
            HttpClient http = client(pki.trustingClient());
            HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create(base + "/v0/status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(engine.id(), new JsonObject(status.body()).getString("tlsEngine"), status.body());
            assertEquals(204, client(pki.nodeClient()).send(SecurityTest.signed(base + Routes.PING, "GET", null,
                    null, SecurityTest.SECRET, System.currentTimeMillis()).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode(), "a peer's signed request over mutual TLS");
            assertThrows(IOException.class, () -> client(pki.strangerClient()).send(HttpRequest.newBuilder(
                    URI.create(base + "/v0/status")).build(), HttpResponse.BodyHandlers.ofString()),
                    "a certificate from another CA fails the handshake");
            for (TlsEngine clientEngine : TlsEngine.values()) {
                try (KvClient kv = KvClient.builder().seeds(base).trustedCa(pki.caPem).tlsEngine(clientEngine)
                        .routing(KvClient.Routing.ROUND_ROBIN).build()) {
                    kv.blocking().put("k-" + clientEngine.id(), "v");
                    assertEquals("v", kv.blocking().getString("k-" + clientEngine.id()).orElseThrow(),
                            clientEngine.id() + " client, " + engine.id() + " node");
                }
            }
        } finally {
            node.stop().toCompletableFuture().get();
        }
    }

    @Test
    void tlsOptionsAreCheckedWhenTheConfigurationIsBuilt() {
        Path data = dir.resolve("other");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvServerConfig.builder().dataDirectory(data)
                .security(security -> security.tls(pki.nodeCert, null)).build()).getMessage().contains("--tls-key"));
        // Files are read when the node starts, or when asked to check them; not while building.
        KvServerConfig missingKey = KvServerConfig.builder().dataDirectory(data)
                .security(security -> security.tls(pki.nodeCert, dir.resolve("missing.key"))).build();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> missingKey.security().check()).getMessage()
                .contains("--tls-key " + dir.resolve("missing.key") + " cannot be read"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvServerConfig.builder().dataDirectory(data)
                .security(security -> security.tlsCa(pki.caPem)).build()).getMessage().contains("--tls-ca needs"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvServerConfig.builder().dataDirectory(data).port(7001)
                .security(security -> security.tls(pki.nodeCert, pki.nodeKey)).self("http://127.0.0.1:7001")
                .cluster(List.of("http://127.0.0.1:7001", "http://127.0.0.1:7002")).build()).getMessage().contains("https://"));
    }
}
