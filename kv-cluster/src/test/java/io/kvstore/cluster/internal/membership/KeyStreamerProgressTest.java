package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.Storage;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stream tells of its progress while it runs and once it is done: the keys it read of its store
 * against the tables' entries when it started, and the entries and bytes it sent, equal to what its
 * receivers got.
 */
class KeyStreamerProgressTest {
    private static final int KEYS = 20_000;

    @TempDir
    Path dir;

    @Test
    void aStreamCountsTheKeysItReadAndTheEntriesAndBytesItSent() throws Exception {
        // Rendezvous places each key by its own hash, so every owner reads its whole store.
        ClusterMap before = MovementCases.seed(MovementCases.FIVE.subList(0, 4), 2, "rendezvous");
        KeyMovement movement = KeyMovement.join(2, before.withJoining(MovementCases.FIVE.get(4)), MovementCases.FIVE.get(4));
        String self = movement.senders().get(0);
        AtomicLong received = new AtomicLong();
        AtomicLong receivedBytes = new AtomicLong();
        CountDownLatch firstBatch = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
        try (Dao dao = Engine.LSM.open(DaoOptions.builder(dir.resolve("store")).syncPolicy(SyncPolicy.NONE).build())) {
            for (int i = 0; i < KEYS; i++) {
                byte[] key = MovementCases.key(i);
                dao.upsert(Entry.value(key, ("value-" + i + "-" + "x".repeat(200)).getBytes(StandardCharsets.UTF_8), 1 + i));
            }
            dao.flush();
            long tableEntries = dao.properties().tableEntries();
            KeyStreamer streamer = new KeyStreamer(dao, movement, self, (node, batch) -> {
                received.addAndGet(batch.size());
                for (Entry entry : batch) {
                    receivedBytes.addAndGet(entry.key().length + entry.value().length + 16L);
                }
                firstBatch.countDown();
                return (CompletionStage<Void>) release; // the first round stays unacknowledged until the test looks
            }, Storage.local(), checkpoints, BackgroundBudget.fixed().lane(BackgroundWork.STREAM, 0), KeyStreamer.MIN_BATCH_BYTES);
            assertEquals(new StreamProgress(StreamProgress.State.RUNNING, 0, 0, 0, 0, null), streamer.progress(),
                    "nothing counted before it runs");

            Future<Long> run = thread.submit(streamer::run);
            assertTrue(firstBatch.await(30, TimeUnit.SECONDS), "no batch sent");
            StreamProgress midway = streamer.progress();
            assertEquals(tableEntries, midway.keysToScan(), "the estimate is the tables' entries: " + midway);
            assertTrue(midway.keysScanned() > 0 && midway.keysScanned() < KEYS, "read part of the store: " + midway);
            assertTrue(midway.entries() > 0 && midway.bytes() >= midway.entries() * 16, midway.toString());
            release.complete(null);
            long sent = run.get(60, TimeUnit.SECONDS);

            StreamProgress done = streamer.progress();
            assertEquals(KEYS, done.keysScanned(), "every key of the store read once: " + done);
            assertEquals(KEYS, done.keysToScan());
            assertEquals(sent, done.entries());
            assertEquals(received.get(), done.entries(), "counted as the receivers got them");
            assertEquals(receivedBytes.get(), done.bytes());
            assertTrue(sent > 0 && sent < KEYS, "a share of the keys moves to the newcomer: " + sent);
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void aChangeAddsItsStreamsAndTheRunsBeforeASourceRestarted() {
        MapChange change = new MapChange(7, ChangeOperation.JOIN, "http://e:5", false, false, 0);
        change.streamProgress("http://a:1", "7", running(100, 1000, 40, 4000));
        change.streamProgress("http://b:2", "7", running(0, 0, 0, 0));
        change.streamProgress("http://b:2", "7", new StreamProgress(StreamProgress.State.DONE, 0, 0, 0, 0, null));
        assertEquals(100, change.keysScanned());
        assertEquals(1000, change.keysToScan(), "a source that reads nothing adds nothing to read");
        assertEquals(40, change.entriesStreamed());
        assertEquals(4000, change.bytesStreamed());

        // a restarts and resumes after its checkpoint, counting from zero: what it sent before stays counted.
        change.streamProgress("http://a:1", "7", StreamProgress.UNKNOWN);
        change.streamProgress("http://a:1", "7", StreamProgress.failed("broken pipe"));
        change.streamProgress("http://a:1", "7", running(30, 900, 10, 1000));
        assertEquals(130, change.keysScanned());
        assertEquals(50, change.entriesStreamed());
        assertEquals(5000, change.bytesStreamed());
        assertEquals(1000, change.keysToScan(), "the first run's estimate stands");

        change.streamProgress("http://c:3", "7", running(5, -1, 0, 0));
        assertEquals(-1, change.keysToScan(), "a store that keeps no count makes the whole unknown");
    }

    private static StreamProgress running(long scanned, long toScan, long entries, long bytes) {
        return new StreamProgress(StreamProgress.State.RUNNING, scanned, toScan, entries, bytes, null);
    }
}
