package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.vertx.core.json.JsonObject;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node asked for the openssl TLS engine where BoringSSL is not there (an embedding application that
 * left out the optional dependency, a platform it has no build for) serves TLS on the JDK's engine and
 * says so once.
 */
@Tag("slow")
class TlsEngineFallbackTest {
    @TempDir
    Path dir;

    @Test
    void withoutBoringSslTheOpensslEngineFallsBackToTheJdksWithOneWarning() throws Exception {
        List<String> withoutBoringSsl = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("netty-tcnative")) {
                withoutBoringSsl.add(entry);
            }
        }
        assertNotEquals(System.getProperty("java.class.path"), String.join(File.pathSeparator, withoutBoringSsl),
                "the test class path has BoringSSL to leave out");
        TestCertificates pki = TestCertificates.shared();
        int port = TestCluster.freePort();
        ChildServer node = ChildServer.launch(String.join(File.pathSeparator, withoutBoringSsl), port, dir.resolve("data"),
                "-XX:TieredStopAtLevel=1", "--tls-cert", pki.nodeCert.toString(), "--tls-key", pki.nodeKey.toString(),
                "--tls-ca", pki.caPem.toString(), "--tls-engine", "openssl", "--event-loops", "1");
        try {
            node.awaitLine("listening on port " + port);
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(pki.trustingClient())
                    .connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v0/status"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("jdk", new JsonObject(status.body()).getString("tlsEngine"), status.body());
            assertEquals(1, node.countLines("the openssl TLS engine is unavailable, using the JDK's"), node.log());
            assertEquals(1, node.countLines("listening on port " + port, "TLS by jdk"), node.log());
        } finally {
            node.process.destroyForcibly();
            node.process.waitFor();
        }
    }
}
