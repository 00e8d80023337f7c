package io.kvstore.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpReplica} against a scripted peer on a real socket: a connection the peer closes before
 * answering is tried once more, with the same request; nothing else is.
 */
class HttpReplicaTest {
    private static final long TIMEOUT_MILLIS = 5_000;

    private Vertx vertx;
    private WebClient client;
    private HttpServer peer;
    /** What the peer received, in order: method, uri and body of each request. */
    private final List<String> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        vertx = Vertx.vertx();
        client = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true));
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Starts the peer: {@code answer} gets each request with its number (from 1) once its body is in. */
    private HttpReplica replicaOf(BiConsumer<HttpServerRequest, Integer> answer) throws Exception {
        AtomicInteger count = new AtomicInteger();
        peer = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
            received.add(request.method() + " " + request.uri() + " " + body.toString(UTF_8));
            answer.accept(request, count.incrementAndGet());
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return new HttpReplica(client, "http://127.0.0.1:" + peer.actualPort(), TIMEOUT_MILLIS);
    }

    private static void closeFirst(HttpServerRequest request, int number, int status) {
        if (number == 1) {
            request.connection().close();
        } else {
            request.response().setStatusCode(status).end();
        }
    }

    @Test
    void aWriteWhoseConnectionClosesUnansweredIsSentOnceMoreTheSame() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> closeFirst(request, number, 201));
        replica.upsert(Entry.value("k".getBytes(UTF_8), "v1".getBytes(UTF_8), 42)).toCompletableFuture().get();
        assertEquals(2, received.size(), received.toString());
        assertEquals(received.get(0), received.get(1), "the same method, key, timestamp and body");
        assertTrue(received.get(0).startsWith("PUT " + InternalCodec.PATH) && received.get(0).endsWith("ts=42 v1"),
                received.get(0));
    }

    @Test
    void aDeleteWhoseConnectionClosesUnansweredIsSentOnceMore() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> closeFirst(request, number, 202));
        replica.upsert(Entry.tombstone("k".getBytes(UTF_8), 43)).toCompletableFuture().get();
        assertEquals(2, received.size(), received.toString());
        assertTrue(received.get(1).startsWith("DELETE "), received.get(1));
    }

    @Test
    void aReadWhoseConnectionClosesUnansweredIsSentOnceMore() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> {
            if (number == 1) {
                request.connection().close();
            } else {
                request.response().putHeader(InternalCodec.TIMESTAMP_HEADER, "44").end("v");
            }
        });
        Entry entry = replica.get("k".getBytes(UTF_8)).toCompletableFuture().get();
        assertEquals(2, received.size(), received.toString());
        assertArrayEquals("v".getBytes(UTF_8), entry.value());
        assertEquals(44, entry.timestamp());
    }

    @Test
    void aSecondCloseFailsTheAnswer() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> request.connection().close());
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> replica.upsert(Entry.value("k".getBytes(UTF_8), "v".getBytes(UTF_8), 1)).toCompletableFuture().get());
        assertInstanceOf(HttpClosedException.class, failure.getCause());
        assertEquals(2, received.size(), received.toString());
    }

    @Test
    void anAnswerThatIsNotSuccessIsNotSentAgain() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> request.response().setStatusCode(503).end());
        ExecutionException failure = assertThrows(ExecutionException.class,
                () -> replica.upsert(Entry.value("k".getBytes(UTF_8), "v".getBytes(UTF_8), 1)).toCompletableFuture().get());
        assertTrue(failure.getCause().getMessage().contains("503"), failure.getCause().getMessage());
        assertEquals(1, received.size(), received.toString());
    }

    @Test
    void internodeConnectionsIdleOutBeforeThePeersIdleTimeout() {
        assertEquals(30, KvServer.internodeKeepAliveSeconds(Duration.ofSeconds(60)));
        assertEquals(1, KvServer.internodeKeepAliveSeconds(Duration.ofSeconds(3)));
        assertEquals(1, KvServer.internodeKeepAliveSeconds(Duration.ofMillis(500)), "Vert.x counts whole seconds");
    }
}
