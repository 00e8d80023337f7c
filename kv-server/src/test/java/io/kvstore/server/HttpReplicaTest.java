package io.kvstore.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.kvstore.server.internode.HttpReplica;
import io.kvstore.server.internode.InternodeClients;
import io.kvstore.server.wire.BatchCodec;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * answering is tried once more, with the same request; nothing else is. Writes of one event-loop round
 * travel as one batch, or one by one to a peer that does not know the writes route.
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
        assertTrue(received.get(0).startsWith("PUT " + Routes.INTERNAL_ENTITY) && received.get(0).endsWith("ts=42 v1"),
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
                request.response().putHeader(Headers.TIMESTAMP, "44").end("v");
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

    /** Upserts one value per key in one task of an event loop, so that they travel as one batch; their outcomes. */
    private List<Throwable> upsertInOneRound(HttpReplica replica, String... keys) throws Exception {
        CompletableFuture<List<CompletableFuture<Void>>> started = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(ignored -> {
            List<CompletableFuture<Void>> written = new ArrayList<>();
            for (String key : keys) {
                written.add(replica.upsert(Entry.value(key.getBytes(UTF_8), ("v" + key).getBytes(UTF_8), 7)).toCompletableFuture());
            }
            started.complete(written);
        });
        List<Throwable> outcomes = new ArrayList<>();
        for (CompletableFuture<Void> written : started.get(10, TimeUnit.SECONDS)) {
            try {
                written.get(10, TimeUnit.SECONDS);
                outcomes.add(null);
            } catch (ExecutionException e) {
                outcomes.add(e.getCause());
            }
        }
        return outcomes;
    }

    @Test
    void writesOfOneRoundTravelAsOneBatchAndEachGetsItsOwnOutcome() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> request.response().setStatusCode(200)
                .end(BatchCodec.done(BatchCodec.refused(BatchCodec.done(BatchCodec.answer(3)), "value of 3 bytes exceeds the limit of 2"))));
        List<Throwable> outcomes = upsertInOneRound(replica, "a", "b", "c");
        assertEquals(1, received.size(), received.toString());
        assertTrue(received.get(0).startsWith("POST " + Routes.WRITES + " "), received.get(0));
        assertEquals(null, outcomes.get(0));
        assertTrue(outcomes.get(1).getMessage().contains("refused call 1: value of 3 bytes"), outcomes.get(1).getMessage());
        assertEquals(null, outcomes.get(2));
    }

    @Test
    void readsOfOneRoundTravelAsOneBatchAndEachGetsItsOwnVersion() throws Exception {
        Entry b = Entry.tombstone("b".getBytes(UTF_8), 9);
        Entry c = Entry.value("c".getBytes(UTF_8), "vc".getBytes(UTF_8), 8, 123_456);
        HttpReplica replica = replicaOf((request, number) -> request.response().setStatusCode(200)
                .end(BatchCodec.version(BatchCodec.version(BatchCodec.done(BatchCodec.answer(3)), b), c)));
        CompletableFuture<List<CompletableFuture<Entry>>> started = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(ignored -> started.complete(List.of(
                replica.get("a".getBytes(UTF_8)).toCompletableFuture(),
                replica.get("b".getBytes(UTF_8)).toCompletableFuture(),
                replica.get("c".getBytes(UTF_8)).toCompletableFuture())));
        List<CompletableFuture<Entry>> read = started.get(10, TimeUnit.SECONDS);
        assertEquals(null, read.get(0).get(10, TimeUnit.SECONDS));
        assertEquals(b, read.get(1).get(10, TimeUnit.SECONDS));
        assertEquals(c, read.get(2).get(10, TimeUnit.SECONDS));
        assertEquals(1, received.size(), received.toString());
        assertTrue(received.get(0).startsWith("POST " + Routes.READS + " "), received.get(0));
    }

    @Test
    void aReadBatchAnsweredWithAnotherKeysVersionFailsEveryReadInIt() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> request.response().setStatusCode(200)
                .end(BatchCodec.version(BatchCodec.done(BatchCodec.answer(2)), Entry.value("x".getBytes(UTF_8), new byte[0], 1))));
        CompletableFuture<List<CompletableFuture<Entry>>> started = new CompletableFuture<>();
        vertx.getOrCreateContext().runOnContext(ignored -> started.complete(List.of(
                replica.get("a".getBytes(UTF_8)).toCompletableFuture(), replica.get("b".getBytes(UTF_8)).toCompletableFuture())));
        for (CompletableFuture<Entry> read : started.get(10, TimeUnit.SECONDS)) {
            ExecutionException failure = assertThrows(ExecutionException.class, () -> read.get(10, TimeUnit.SECONDS));
            assertTrue(failure.getCause().getMessage().contains("a version of another key for read 1"), failure.getCause().getMessage());
        }
    }

    @Test
    void aPeerWithoutTheWritesRouteGetsEachWriteAloneThenAndForAWhile() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> {
            if (request.path().equals(Routes.WRITES)) {
                request.response().setStatusCode(400).end("unknown path " + request.path());
            } else {
                request.response().setStatusCode(201).end();
            }
        });
        assertEquals(Arrays.asList(null, null), upsertInOneRound(replica, "a", "b"));
        assertEquals(3, received.size(), received.toString());
        assertTrue(received.get(0).startsWith("POST " + Routes.WRITES), received.toString());
        assertEquals(List.of("PUT " + InternalCodec.writeUri(Entry.value("a".getBytes(UTF_8), new byte[0], 7)) + " va",
                "PUT " + InternalCodec.writeUri(Entry.value("b".getBytes(UTF_8), new byte[0], 7)) + " vb"),
                received.subList(1, 3).stream().sorted().toList());
        assertEquals(Arrays.asList(null, null), upsertInOneRound(replica, "c", "d"));
        assertEquals(5, received.size(), received.toString());
        assertTrue(received.subList(3, 5).stream().allMatch(line -> line.startsWith("PUT ")), "no batch tried again at once: " + received);
    }

    @Test
    void aBatchWhoseConnectionClosesUnansweredIsSentOnceMoreAndABatchRefusedWholeFailsEachWrite() throws Exception {
        HttpReplica replica = replicaOf((request, number) -> {
            if (number == 1) {
                request.connection().close();
            } else if (number == 2) {
                request.response().setStatusCode(200).end(BatchCodec.done(BatchCodec.done(BatchCodec.answer(2))));
            } else {
                request.response().setStatusCode(400).end("malformed write batch at offset 4");
            }
        });
        assertEquals(Arrays.asList(null, null), upsertInOneRound(replica, "a", "b"));
        assertEquals(2, received.size(), received.toString());
        assertEquals(received.get(0), received.get(1), "the same batch");
        List<Throwable> refused = upsertInOneRound(replica, "c", "d");
        assertEquals(3, received.size(), received.toString());
        for (Throwable failure : refused) {
            assertTrue(failure.getMessage().contains("answered 400: malformed write batch"), String.valueOf(failure));
        }
    }

    @Test
    void internodeConnectionsIdleOutBeforeThePeersIdleTimeout() {
        assertEquals(30, InternodeClients.keepAliveSeconds(Duration.ofSeconds(60)));
        assertEquals(1, InternodeClients.keepAliveSeconds(Duration.ofSeconds(3)));
        assertEquals(1, InternodeClients.keepAliveSeconds(Duration.ofMillis(500)), "Vert.x counts whole seconds");
    }
}
