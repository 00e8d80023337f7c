package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress of a repair and of a cleanup: {@code POST ...?async=true} answers {@code 202} with the
 * run's entry, {@code GET ...?id=N} follows it to {@code done} with the summary the waiting
 * {@code POST} answers, or to {@code failed} with the reason; bad ids, methods and flags are refused.
 */
@Tag("slow")
class AdminProgressRoutesTest {
    @TempDir
    Path dir;
    private TestCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster(dir, 3);
        for (int i = 0; i < 40; i++) {
            assertEquals(201, cluster.put(0, "id=key" + i, "value" + i));
        }
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private HttpResponse<byte[]> send(String method, String target) throws Exception {
        return cluster.send(0, method, target, null);
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /** Polls {@code route?id=id} until the run is no longer running, checking each entry on the way. */
    private JsonObject followed(String route, long id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            HttpResponse<byte[]> answer = send("GET", route + "?id=" + id);
            assertEquals(200, answer.statusCode(), text(answer));
            JsonObject run = new JsonObject(text(answer));
            assertEquals(id, run.getLong("id"));
            assertEquals(cluster.url(0), run.getString("node"));
            assertTrue(run.getLong("partsDone") <= run.getLong("parts"), run.encode());
            if (!"running".equals(run.getString("status"))) {
                assertNotNull(run.getString("finishedAt"), run.encode());
                return run;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new AssertionError(route + " " + id + " still running after 60 s");
    }

    @Test
    void aRepairStartedAsyncIsFollowedToItsSummary() throws Exception {
        HttpResponse<byte[]> none = send("GET", "/v0/admin/repair");
        assertEquals(404, none.statusCode(), text(none));

        HttpResponse<byte[]> started = send("POST", "/v0/admin/repair?async=true");
        assertEquals(202, started.statusCode(), text(started));
        JsonObject entry = new JsonObject(text(started));
        assertEquals("repair", entry.getString("operation"));
        JsonObject run = followed("/v0/admin/repair", entry.getLong("id"));
        assertEquals("done", run.getString("status"), run.encode());
        assertEquals(2, run.getLong("parts"), "one exchange per peer: " + run.encode());
        assertEquals(2, run.getLong("partsDone"), run.encode());
        assertTrue(run.getLong("keysScanned") > 0, "the trees held the keys: " + run.encode());
        assertEquals(2, run.getJsonObject("result").getJsonArray("peers").size(), run.encode());

        HttpResponse<byte[]> latest = send("GET", "/v0/admin/repair");
        assertEquals(entry.getLong("id"), new JsonObject(text(latest)).getLong("id"), "without an id: the latest run");
        HttpResponse<byte[]> waited = send("POST", "/v0/admin/repair");
        assertEquals(200, waited.statusCode(), "the waiting POST still answers the summary: " + text(waited));
        long waitedId = new JsonObject(text(send("GET", "/v0/admin/repair"))).getLong("id");
        assertTrue(waitedId > entry.getLong("id"), "a waited run is listed too");
    }

    @Test
    void aRepairWhosePeerIsDownEndsFailedWithThePeerAndWhy() throws Exception {
        cluster.stop(2);
        HttpResponse<byte[]> started = send("POST", "/v0/admin/repair?async=true");
        assertEquals(202, started.statusCode(), text(started));
        JsonObject run = followed("/v0/admin/repair", new JsonObject(text(started)).getLong("id"));
        assertEquals("failed", run.getString("status"), run.encode());
        assertEquals(2, run.getLong("partsDone"), "the other exchange still ran: " + run.encode());
        assertTrue(run.getString("reason").startsWith("could not repair with " + cluster.url(2) + ": " + cluster.url(2) + ": "),
                run.getString("reason"));
        assertTrue(run.getJsonObject("result").getJsonObject("failedPeers").containsKey(cluster.url(2)), run.encode());
    }

    @Test
    void aCleanupStartedAsyncIsFollowedToItsSummary() throws Exception {
        HttpResponse<byte[]> started = send("POST", "/v0/admin/cleanup?async=true");
        assertEquals(202, started.statusCode(), text(started));
        JsonObject run = followed("/v0/admin/cleanup", new JsonObject(text(started)).getLong("id"));
        assertEquals("done", run.getString("status"), run.encode());
        assertEquals("cleanup", run.getString("operation"));
        assertEquals(1, run.getLong("partsDone"), run.encode());
        JsonObject result = run.getJsonObject("result");
        assertEquals(cluster.url(0), result.getString("node"));
        assertEquals(run.getLong("keysDone"), result.getLong("keysRemoved"), "removed as counted: " + run.encode());
    }

    @Test
    void badIdsMethodsAndFlagsAreRefused() throws Exception {
        for (String route : List.of("/v0/admin/repair", "/v0/admin/cleanup")) {
            HttpResponse<byte[]> malformed = send("GET", route + "?id=12x");
            assertEquals(400, malformed.statusCode(), route + ": " + text(malformed));
            assertTrue(text(malformed).contains("bad id '12x'"), text(malformed));
            assertEquals(400, send("GET", route + "?id=-1").statusCode(), route);
            assertEquals(400, send("GET", route + "?id=").statusCode(), route);
            HttpResponse<byte[]> unknown = send("GET", route + "?id=42");
            assertEquals(404, unknown.statusCode(), route + ": " + text(unknown));
            assertTrue(text(unknown).contains(" 42 on " + cluster.url(0)), text(unknown));
            HttpResponse<byte[]> put = send("PUT", route);
            assertEquals(405, put.statusCode(), route);
            assertEquals("GET, POST", put.headers().firstValue("Allow").orElse(null), route);
            HttpResponse<byte[]> async = send("POST", route + "?async=soon");
            assertEquals(400, async.statusCode(), route + ": " + text(async));
            assertTrue(text(async).contains("async must be true or false"), text(async));
        }
    }
}
