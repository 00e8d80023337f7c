package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.ServerCommand;
import io.kvstore.server.security.RequestSignature;
import io.kvstore.server.security.SecretFile;
import io.kvstore.server.security.Secrets;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real node with a cluster secret, an admin token and optionally a client token: every missing,
 * wrong, expired, replayed, oversized or altered credential gets its status and writes nothing.
 */
class SecurityTest {
    static final String SECRET = "cluster-secret-0123456789abcdef";
    static final String OTHER_SECRET = "another-secret-0123456789abcdef";
    static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
    static final String CLIENT_TOKEN = "client-token-0123456789abcdef";

    @TempDir
    Path dir;
    private KvServer server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop().toCompletableFuture().get();
        }
    }

    static Path secretFile(Path dir, String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private void start(UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        Path secret = secretFile(dir, "secret", SECRET + "\n");
        Path admin = secretFile(dir, "admin", ADMIN_TOKEN + "\n");
        KvServerConfig.Builder config = KvServerConfig.builder().port(0).dataDirectory(dir.resolve("data"))
                .network(network -> network.eventLoops(1))
                .security(security -> security.clusterSecretFile(secret).adminTokenFile(admin));
        server = KvServer.start(tweak.apply(config).build()).toCompletableFuture().get();
    }

    private String url(String target) {
        return "http://127.0.0.1:" + server.port() + target;
    }

    /** A request signed with {@code secret} at {@code date}, whose digest header is that of {@code signedBody}. */
    static HttpRequest.Builder signed(String url, String method, byte[] signedBody, byte[] sentBody, String secret, long date) {
        URI uri = URI.create(url);
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String digest = RequestSignature.digest(signedBody == null ? new byte[0] : signedBody);
        String authorization = new RequestSignature(Secrets.of("test", secret))
                .sign(method, target, Long.toString(date), digest);
        return HttpRequest.newBuilder(uri)
                .method(method, sentBody == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(sentBody))
                .header("Authorization", authorization)
                .header(RequestSignature.DATE_HEADER, Long.toString(date))
                .header(RequestSignature.CONTENT_HEADER, digest)
                .timeout(Duration.ofSeconds(10));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder plain(String target, String method, String body) {
        return HttpRequest.newBuilder(URI.create(url(target))).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
    }

    private static String internalWrite(String key, long timestamp) {
        return Routes.INTERNAL_ENTITY + "?key=" + InternalCodec.encodeKey(key.getBytes(StandardCharsets.UTF_8)) + "&ts=" + timestamp;
    }

    private int clientGet(String key, String... headers) throws Exception {
        HttpRequest.Builder request = plain("/v0/entity?id=" + key, "GET", null);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return send(request).statusCode();
    }

    private HttpResponse<String> internalPut(String key, String body, String secret, long date) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return send(signed(url(internalWrite(key, 1000)), "PUT", bytes, bytes, secret, date));
    }

    @Test
    void aSignedInternalWriteIsApplied() throws Exception {
        start(b -> b);
        assertEquals(201, internalPut("k", "v", SECRET, System.currentTimeMillis()).statusCode());
        assertEquals(200, clientGet("k"));
    }

    @Test
    void anUnsignedInternalWriteIs401AndWritesNothing() throws Exception {
        start(b -> b);
        HttpResponse<String> answer = send(plain(internalWrite("k", 1000), "PUT", "v"));
        assertEquals(401, answer.statusCode());
        assertTrue(answer.headers().firstValue("WWW-Authenticate").isPresent());
        assertTrue(answer.body().contains("signed with the cluster secret"), answer.body());
        assertEquals(404, clientGet("k"));
    }

    @Test
    void onlyANodeWithTheSecretCanVoteInTheEpochLog() throws Exception {
        start(b -> b);
        String route = "/internal/v0/membership/epoch";
        byte[] prepare = "{\"phase\":\"prepare\",\"epoch\":2,\"round\":1,\"node\":\"http://127.0.0.1:1\"}"
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> unsigned = send(plain(route, "POST", new String(prepare, StandardCharsets.UTF_8)));
        assertEquals(401, unsigned.statusCode(), unsigned.body());
        long now = System.currentTimeMillis();
        assertEquals(403, send(signed(url(route), "POST", prepare, prepare, OTHER_SECRET, now)).statusCode());
        HttpResponse<String> voted = send(signed(url(route), "POST", prepare, prepare, SECRET, now));
        assertEquals(200, voted.statusCode(), voted.body());
        assertTrue(voted.body().contains("\"answer\":\"promise\""), voted.body());
    }

    @Test
    void anInternalWriteSignedWithAnotherSecretIs403AndWritesNothing() throws Exception {
        start(b -> b);
        HttpResponse<String> answer = internalPut("k", "v", OTHER_SECRET, System.currentTimeMillis());
        assertEquals(403, answer.statusCode());
        assertTrue(answer.body().contains("another cluster secret"), answer.body());
        assertEquals(404, clientGet("k"));
    }

    @Test
    void expiredAndFutureSignaturesAre403AndWriteNothing() throws Exception {
        start(b -> b);
        long now = System.currentTimeMillis();
        HttpResponse<String> expired = internalPut("k", "v", SECRET, now - RequestSignature.WINDOW_MILLIS - 5_000);
        assertEquals(403, expired.statusCode());
        assertTrue(expired.body().contains("ms old"), expired.body());
        assertEquals(403, internalPut("k", "v", SECRET, now + RequestSignature.WINDOW_MILLIS + 5_000).statusCode());
        assertEquals(404, clientGet("k"));
    }

    @Test
    void aCapturedRequestReplayedWithAnotherKeyOrBodyIs403() throws Exception {
        start(b -> b);
        long now = System.currentTimeMillis();
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        HttpRequest original = signed(url(internalWrite("k", 1000)), "PUT", value, value, SECRET, now).build();
        // The same headers on another key: the signature covers the target.
        HttpRequest.Builder otherKey = HttpRequest.newBuilder(URI.create(url(internalWrite("other", 1000))))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(value));
        original.headers().map().forEach((name, values) -> values.forEach(v -> otherKey.header(name, v)));
        assertEquals(403, send(otherKey).statusCode());
        // The same headers with another body: the digest is checked as the body is read.
        HttpRequest.Builder otherBody = HttpRequest.newBuilder(original.uri())
                .PUT(HttpRequest.BodyPublishers.ofString("forged value"));
        original.headers().map().forEach((name, values) -> values.forEach(v -> otherBody.header(name, v)));
        HttpResponse<String> forged = send(otherBody);
        assertEquals(403, forged.statusCode());
        assertTrue(forged.body().contains("does not match"), forged.body());
        assertEquals(404, clientGet("k"));
        assertEquals(404, clientGet("other"));
    }

    @Test
    void aSignedMapPushOrStreamRequestCarryingAnotherBodyIs403() throws Exception {
        start(b -> b);
        long epoch = new io.vertx.core.json.JsonObject(send(plain(Routes.CLUSTER, "GET", null)).body())
                .getLong("epoch");
        byte[] signed = "{}".getBytes(StandardCharsets.UTF_8);
        for (String path : new String[] {Routes.MAP, Routes.MEMBERSHIP_STREAM}) {
            String method = path.equals(Routes.MAP) ? "PUT" : "POST";
            byte[] forged = ("{\"forged\": \"" + path + "\"}").getBytes(StandardCharsets.UTF_8);
            HttpResponse<String> answer = send(signed(url(path), method, signed, forged, SECRET, System.currentTimeMillis()));
            assertEquals(403, answer.statusCode(), path + ": " + answer.body());
            assertTrue(answer.body().contains("does not match"), answer.body());
        }
        assertEquals(epoch, new io.vertx.core.json.JsonObject(send(plain(Routes.CLUSTER, "GET", null)).body())
                .getLong("epoch"), "no map adopted");
    }

    @Test
    void anEpochHintNamingANodeOutsideTheMapNeverMakesTheNodeAskIt() throws Exception {
        start(b -> b);
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        com.sun.net.httpserver.HttpServer attacker = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        attacker.createContext("/", exchange -> {
            asked.countDown();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        attacker.start();
        try {
            String attackerUrl = "http://127.0.0.1:" + attacker.getAddress().getPort();
            for (String node : new String[] {attackerUrl, ":", "not a url"}) {
                HttpResponse<String> answer = send(plain(Routes.CLUSTER, "GET", null)
                        .header(Headers.EPOCH, Long.toString(Long.MAX_VALUE - 1))
                        .header(Headers.NODE, node));
                assertEquals(200, answer.statusCode(), node + ": " + answer.body());
            }
            // The pull, had there been one, starts as the request is handled: well within this wait.
            assertFalse(asked.await(2, java.util.concurrent.TimeUnit.SECONDS), "the node asked " + attackerUrl + " for a map");
        } finally {
            attacker.stop(0);
        }
    }

    @Test
    void aWriteReplayedWithinTheWindowStoresItsOwnVersionAgainAndCannotUndoANewerOne() throws Exception {
        start(b -> b);
        byte[] old = "old".getBytes(StandardCharsets.UTF_8);
        HttpRequest captured = signed(url(internalWrite("k", 1000)), "PUT", old, old, SECRET, System.currentTimeMillis()).build();
        assertEquals(201, http.send(captured, HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(201, send(plain("/v0/entity?id=k", "PUT", "new")).statusCode());
        assertEquals(201, http.send(captured, HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals("new", send(plain("/v0/entity?id=k", "GET", null)).body());
    }

    @Test
    void malformedAndOversizedCredentialsAre403() throws Exception {
        start(b -> b);
        String target = internalWrite("k", 1000);
        assertEquals(403, send(plain(target, "PUT", "v").header("Authorization", "Basic dXNlcjpwYXNz")).statusCode());
        assertEquals(403, send(plain(target, "PUT", "v").header("Authorization", RequestSignature.SCHEME + " " + "A".repeat(600)))
                .statusCode());
        assertEquals(403, send(plain(target, "PUT", "v").header("Authorization", RequestSignature.SCHEME + " not-base64!")
                .header(RequestSignature.DATE_HEADER, Long.toString(System.currentTimeMillis()))
                .header(RequestSignature.CONTENT_HEADER, RequestSignature.EMPTY_BODY_DIGEST)).statusCode());
        assertEquals(403, send(plain(target, "PUT", "v").header("Authorization", RequestSignature.SCHEME + " abc")
                .header(RequestSignature.DATE_HEADER, "yesterday")
                .header(RequestSignature.CONTENT_HEADER, RequestSignature.EMPTY_BODY_DIGEST)).statusCode());
        assertEquals(403, send(plain(target, "PUT", "v").header("Authorization", RequestSignature.SCHEME + " abc")).statusCode());
        assertEquals(404, clientGet("k"));
    }

    @Test
    void adminRoutesNeedTheAdminTokenOrASignature() throws Exception {
        start(b -> b);
        HttpResponse<String> none = send(plain(Routes.ADMIN_REPAIR, "POST", null));
        assertEquals(401, none.statusCode());
        assertEquals(403, send(plain(Routes.ADMIN_REPAIR, "POST", null)
                .header("Authorization", "Bearer wrong-token-0123456789abcdef")).statusCode());
        assertEquals(403, send(plain(Routes.ADMIN_REPAIR, "POST", null)
                .header("Authorization", "Bearer " + SECRET)).statusCode(), "the cluster secret itself is never a bearer token");
        int withToken = send(plain(Routes.ADMIN_REPAIR, "POST", null).header("Authorization", "Bearer " + ADMIN_TOKEN)).statusCode();
        assertEquals(200, withToken);
        assertEquals(200, send(signed(url(Routes.ADMIN_REPAIR), "POST", null, null, SECRET, System.currentTimeMillis())).statusCode());
        assertEquals(401, send(plain("/v0/admin/anything", "POST", null)).statusCode(), "the whole prefix is admin");
    }

    @Test
    void withoutSecretOrTokenAdminRoutesAnswerLoopbackOnly() throws Exception {
        server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir.resolve("data"))
                .network(network -> network.eventLoops(1)).build())
                .toCompletableFuture().get();
        assertEquals(200, send(plain(Routes.ADMIN_REPAIR, "POST", null)).statusCode());
        java.net.InetAddress external = nonLoopbackAddress();
        org.junit.jupiter.api.Assumptions.assumeTrue(external != null, "no non-loopback address to connect from");
        HttpResponse<String> remote = http.send(HttpRequest.newBuilder(URI.create("http://" + hostLiteral(external) + ":"
                + server.port() + Routes.ADMIN_REPAIR)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, remote.statusCode());
        assertTrue(remote.body().contains("loopback"), remote.body());
    }

    @Test
    void clientRoutesAreOpenWithoutAClientTokenAndClosedWithOne() throws Exception {
        start(b -> b);
        assertEquals(201, send(plain("/v0/entity?id=k", "PUT", "v")).statusCode());
        stop();
        server = null;
        start(b -> {
            try {
                Path client = secretFile(dir, "client", CLIENT_TOKEN);
                return b.security(security -> security.clientTokenFile(client));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(401, send(plain("/v0/entity?id=k2", "PUT", "v")).statusCode());
        assertEquals(403, send(plain("/v0/entity?id=k2", "PUT", "v").header("Authorization", "Bearer " + ADMIN_TOKEN)).statusCode());
        assertEquals(403, send(plain("/v0/entity?id=k2", "PUT", "v").header("Authorization", "Bearer " + "x".repeat(1000))).statusCode());
        assertEquals(404, clientGet("k2", "Authorization", "Bearer " + CLIENT_TOKEN));
        assertEquals(201, send(plain("/v0/entity?id=k2", "PUT", "v").header("Authorization", "Bearer " + CLIENT_TOKEN)).statusCode());
        assertEquals(200, clientGet("k2", "Authorization", "Bearer " + CLIENT_TOKEN));
        assertEquals(401, send(plain("/v0/status", "GET", null)).statusCode());
    }

    @Test
    void statusNeverShowsASecret() throws Exception {
        start(b -> b);
        String status = send(plain("/v0/status", "GET", null)).body();
        assertFalse(status.contains(SECRET) || status.contains(ADMIN_TOKEN), status);
        assertFalse(server.config().toString().contains(SECRET));
        assertFalse(SecretFile.read(server.config().security().clusterSecretFile(), "--cluster-secret-file").toString()
                .contains(SECRET));
    }

    @Test
    void badSecretFilesAreRefusedAtStartNamingTheFileAndWhy() throws Exception {
        Path data = dir.resolve("data");
        assertRefused(dir.resolve("missing"), "does not exist");
        assertRefused(secretFile(dir, "empty", "\n\n"), "is empty");
        assertRefused(secretFile(dir, "short", "short\n"), "shorter than");
        assertRefused(secretFile(dir, "three", SECRET + "\n" + OTHER_SECRET + "\n" + ADMIN_TOKEN + "\n"), "at most 2");
        assertRefused(secretFile(dir, "large", "x".repeat(SecretFile.MAX_FILE_BYTES + 1)), "larger than");
        Path open = secretFile(dir, "open", SECRET);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        assertRefused(open, "every user");
        Secrets two = SecretFile.read(secretFile(dir, "two", SECRET + "\n" + OTHER_SECRET + "\n"), "--cluster-secret-file");
        assertEquals(2, two.accepted().size());
        assertTrue(two.matches(OTHER_SECRET.getBytes(StandardCharsets.UTF_8)));
        assertNotNull(data);
    }

    @Test
    void theCommandLineSetsEverySecurityOptionAndRefusesABadSecretFileAsAUsageError() throws Exception {
        Path secret = secretFile(dir, "secret", SECRET);
        Path admin = secretFile(dir, "admin", ADMIN_TOKEN);
        Path client = secretFile(dir, "client", CLIENT_TOKEN);
        Path pem = secretFile(dir, "any.pem", "not parsed until the node starts");
        KvServerConfig c = ServerCommand.parse("--data-dir", dir.resolve("data").toString(),
                "--cluster", "https://h1:9001,https://h2:9002", "--self", "https://h1:9001", "--port", "9001",
                "--cluster-secret-file", secret.toString(), "--admin-token-file", admin.toString(),
                "--client-token-file", client.toString(), "--tls-cert", pem.toString(), "--tls-key", pem.toString(),
                "--tls-ca", pem.toString());
        assertEquals(secret, c.security().clusterSecretFile());
        assertEquals(admin, c.security().adminTokenFile());
        assertEquals(client, c.security().clientTokenFile());
        assertEquals(pem, c.security().tlsCertificate());
        assertEquals(pem, c.security().tlsKey());
        assertEquals(pem, c.security().tlsCa());
        assertEquals("https", c.scheme());
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
        picocli.CommandLine.ParameterException e = assertThrows(picocli.CommandLine.ParameterException.class,
                () -> ServerCommand.parse("--cluster-secret-file", secret.toString()));
        assertTrue(e.getMessage().contains("--cluster-secret-file " + secret) && e.getMessage().contains("chmod 600"), e.getMessage());
    }

    @Test
    void aConfigurationIsBuiltWithoutReadingItsFilesAndTheNodeRefusesToStartOnABadOne() {
        Path missing = dir.resolve("missing");
        KvServerConfig config = KvServerConfig.builder().port(0).dataDirectory(dir.resolve("data"))
                .security(security -> security.clusterSecretFile(missing).tls(missing, missing)).build();
        assertEquals(missing, config.security().clusterSecretFile());
        ExecutionException e = assertThrows(ExecutionException.class, () -> KvServer.start(config).toCompletableFuture().get());
        assertTrue(e.getCause() instanceof IllegalArgumentException
                && e.getCause().getMessage().contains("--tls-cert " + missing + " cannot be read"), String.valueOf(e.getCause()));
    }

    private void assertRefused(Path file, String why) {
        KvServerConfig config = KvServerConfig.builder().dataDirectory(dir.resolve("data"))
                .security(security -> security.clusterSecretFile(file)).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config.security().check());
        assertTrue(e.getMessage().contains("--cluster-secret-file " + file) && e.getMessage().contains(why), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }

    private static java.net.InetAddress nonLoopbackAddress() throws Exception {
        for (java.net.NetworkInterface each : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            if (!each.isUp() || each.isLoopback()) {
                continue;
            }
            for (java.net.InetAddress address : java.util.Collections.list(each.getInetAddresses())) {
                if (address instanceof java.net.Inet4Address && !address.isLoopbackAddress()) {
                    return address;
                }
            }
        }
        return null;
    }

    private static String hostLiteral(java.net.InetAddress address) {
        return address.getHostAddress();
    }
}
