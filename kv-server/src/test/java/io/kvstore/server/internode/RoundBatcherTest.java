package io.kvstore.server.internode;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.kvstore.server.wire.BatchCodec;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RoundBatcher} against a recording sender, with writes: what one round of an event loop sends
 * goes out as one batch, in order, and each call learns its own outcome.
 */
class RoundBatcherTest {
    private final Vertx vertx = Vertx.vertx();
    /** One event loop for every round, so that a later round runs after the tasks an earlier one queued. */
    private final Context loop = vertx.getOrCreateContext();
    /** What the sender was asked to send: one list per request, a single write as a list of one. */
    private final List<List<String>> sent = new CopyOnWriteArrayList<>();
    /** The batches' answers, completed by each test. */
    private final List<Promise<List<AsyncResult<Void>>>> batchAnswers = new CopyOnWriteArrayList<>();
    private final RoundBatcher.Counters counters = new RoundBatcher.Counters();
    private final RoundBatcher<Entry, Void> batcher = new RoundBatcher<>(new RoundBatcher.Sender<>() {
        @Override
        public Future<Void> one(Entry entry) {
            sent.add(List.of(keyOf(entry)));
            return Future.succeededFuture();
        }

        @Override
        public Future<List<AsyncResult<Void>>> batch(List<Entry> entries) {
            List<String> keys = new ArrayList<>();
            entries.forEach(entry -> keys.add(keyOf(entry)));
            sent.add(keys);
            Promise<List<AsyncResult<Void>>> answer = Promise.promise();
            batchAnswers.add(answer);
            return answer.future();
        }
    }, BatchCodec::writeSize, counters);

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String keyOf(Entry entry) {
        return new String(entry.key(), UTF_8);
    }

    private static Entry value(String key, int valueBytes) {
        return Entry.value(key.getBytes(UTF_8), new byte[valueBytes], 1);
    }

    /** Runs {@code round} as one task of an event loop and returns what it returned. */
    private <T> T onEventLoop(Supplier<T> round) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        loop.runOnContext(ignored -> result.complete(round.get()));
        return result.get(10, TimeUnit.SECONDS);
    }

    private List<Future<Void>> writeInOneRound(Entry... entries) throws Exception {
        return onEventLoop(() -> {
            List<Future<Void>> written = new ArrayList<>();
            for (Entry entry : entries) {
                written.add(batcher.submit(entry));
            }
            return written;
        });
    }

    /** Waits until the sender has been asked {@code requests} times: the round's batch goes out in a later task. */
    private void awaitSent(int requests) throws Exception {
        onEventLoop(() -> null);
        assertEquals(requests, sent.size(), sent.toString());
    }

    private static Throwable outcome(Future<Void> written) throws Exception {
        try {
            written.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void theWritesOfOneRoundGoOutAsOneBatchInOrderEachWithItsOwnOutcome() throws Exception {
        List<Future<Void>> written = writeInOneRound(value("a", 10), value("b", 10), Entry.tombstone("c".getBytes(UTF_8), 2));
        awaitSent(1);
        assertEquals(List.of("a", "b", "c"), sent.get(0));
        assertTrue(written.stream().noneMatch(Future::isComplete), "nothing completes before the peer answers");
        IllegalStateException refusal = new IllegalStateException("refused b");
        batchAnswers.get(0).complete(List.of(Future.succeededFuture(), Future.failedFuture(refusal), Future.succeededFuture()));
        assertEquals(null, outcome(written.get(0)));
        assertSame(refusal, outcome(written.get(1)));
        assertEquals(null, outcome(written.get(2)));
        assertEquals(1, counters.batches());
        assertEquals(3, counters.batchedCalls());
    }

    @Test
    void aBatchThatFailsFailsEveryWriteInIt() throws Exception {
        List<Future<Void>> written = writeInOneRound(value("a", 10), value("b", 10));
        awaitSent(1);
        IllegalStateException down = new IllegalStateException("timed out");
        batchAnswers.get(0).fail(down);
        assertSame(down, outcome(written.get(0)));
        assertSame(down, outcome(written.get(1)));
    }

    @Test
    void aWriteAloneInItsRoundIsSentAloneAndTheNextRoundStartsAnotherBatch() throws Exception {
        assertEquals(null, outcome(writeInOneRound(value("a", 10)).get(0)));
        awaitSent(1);
        writeInOneRound(value("b", 10), value("c", 10));
        awaitSent(2);
        assertEquals(List.of(List.of("a"), List.of("b", "c")), sent);
        assertEquals(1, counters.batches());
    }

    @Test
    void writesOffAnEventLoopAreSentAtOnceAlone() throws Exception {
        Future<Void> first = batcher.submit(value("a", 10));
        Future<Void> second = batcher.submit(value("b", 10));
        assertEquals(List.of(List.of("a"), List.of("b")), sent);
        assertEquals(null, outcome(first));
        assertEquals(null, outcome(second));
        assertEquals(0, counters.batches());
    }

    @Test
    void aBatchReachingItsBytesGoesOutAtOnceAndALargeWriteGoesAlone() throws Exception {
        int quarter = RoundBatcher.MAX_BATCH_BYTES / 4;
        writeInOneRound(value("a", quarter), value("b", quarter), value("c", quarter), value("d", quarter),
                value("e", 10), value("big", RoundBatcher.MAX_BATCH_BYTES / 2 + 1), value("f", 10));
        awaitSent(3);
        assertEquals(List.of(List.of("a", "b", "c", "d"), List.of("big"), List.of("e", "f")), sent,
                "the full batch at once, the large write alone as it comes, the rest at the round's end");
    }
}
