package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.internal.repair.RepairExchange;
import io.kvstore.core.AtomicFile;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.Storage;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams this node's share of a {@link KeyMovement}: one throttled scan of the whole store in key
 * order, each entry (value or tombstone, with its timestamp) batched for the nodes that gain it; a batch
 * holds keys in increasing order, which a receiver may ingest as a table. One round of batches is in
 * flight while the scan gathers the next. After
 * every round of batches the receivers acknowledged, the last key scanned is kept in a checkpoint file,
 * so a stream broken by a crash of either side resumes after it instead of from the start; a finished
 * stream is marked so, and running it again does nothing. Each plan of a change (the first and each
 * {@link KeyMovement#withoutSources failover}) keeps a checkpoint of its own, named after its
 * {@link KeyMovement#streamName()}. Blocking: run it on a thread of its own.
 */
public final class KeyStreamer {
    /**
     * The most bytes of entries gathered for one node before a round of batches is sent, and the default:
     * as many as a repair apply takes, since a receiver that ingests writes each batch as a table, and small
     * tables by the thousand would cost it an fsync each and a manifest that grows with every one.
     */
    public static final int MAX_BATCH_BYTES = (int) RepairExchange.BYTES_PER_BATCH;
    /** The fewest bytes of entries a batch may be set to gather. */
    public static final int MIN_BATCH_BYTES = 64 << 10;
    /** Bytes scanned between two calls on the budget lane, which costs too much to call per entry. */
    static final int PACE_BYTES = 64 << 10;
    private static final String DONE = "done";
    private static final Logger LOG = LoggerFactory.getLogger(KeyStreamer.class);

    private final Dao dao;
    private final KeyMovement movement;
    private final String self;
    private final BiFunction<String, List<Entry>, CompletionStage<Void>> sink;
    private final Storage storage;
    private final Path directory;
    private final BudgetLane lane;
    private final int batchBytes;
    private final AtomicLong keysScanned = new AtomicLong();
    private final AtomicLong entriesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private volatile long keysToScan;

    /**
     * @param sink      sends a batch of entries to a node; completes once the node stored them
     * @param directory where the checkpoint lives (the data directory)
     */
    public KeyStreamer(Dao dao, KeyMovement movement, String self,
                       BiFunction<String, List<Entry>, CompletionStage<Void>> sink, Path directory, long bytesPerSecond) {
        this(dao, movement, self, sink, Storage.local(), directory, bytesPerSecond);
    }

    /** A streamer that keeps its checkpoint in {@code directory} of {@code storage}. */
    public KeyStreamer(Dao dao, KeyMovement movement, String self,
                       BiFunction<String, List<Entry>, CompletionStage<Void>> sink, Storage storage, Path directory,
                       long bytesPerSecond) {
        this(dao, movement, self, sink, storage, directory, BackgroundBudget.fixed().lane(BackgroundWork.STREAM, bytesPerSecond));
    }

    /**
     * A streamer that scans at {@code lane}'s pace (the node's background budget) and reports there the
     * bytes it has yet to scan, estimated from the store's size.
     */
    public KeyStreamer(Dao dao, KeyMovement movement, String self,
                       BiFunction<String, List<Entry>, CompletionStage<Void>> sink, Storage storage, Path directory,
                       BudgetLane lane) {
        this(dao, movement, self, sink, storage, directory, lane, MAX_BATCH_BYTES);
    }

    /**
     * A streamer that scans at {@code lane}'s pace and sends a round of batches once one node's holds
     * {@code batchBytes} of entries, or all of them together twice that.
     *
     * @throws IllegalArgumentException if {@code batchBytes} is outside [{@link #MIN_BATCH_BYTES}, {@link #MAX_BATCH_BYTES}]
     */
    public KeyStreamer(Dao dao, KeyMovement movement, String self,
                       BiFunction<String, List<Entry>, CompletionStage<Void>> sink, Storage storage, Path directory,
                       BudgetLane lane, int batchBytes) {
        if (batchBytes < MIN_BATCH_BYTES || batchBytes > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException("stream batch bytes must be in [" + MIN_BATCH_BYTES + ", "
                    + MAX_BATCH_BYTES + "], got " + batchBytes);
        }
        this.batchBytes = batchBytes;
        this.dao = dao;
        this.movement = movement;
        this.self = self;
        this.sink = sink;
        this.storage = storage;
        this.directory = directory;
        this.lane = lane;
    }

    /** How this run goes so far, as {@link StreamProgress.State#RUNNING}; readable from any thread. */
    public StreamProgress progress() {
        return new StreamProgress(StreamProgress.State.RUNNING, keysScanned.get(), keysToScan, entriesSent.get(),
                bytesSent.get(), null);
    }

    /** The checkpoint file of {@code movement}'s stream: {@code stream-}{@link KeyMovement#streamName()}{@code .checkpoint}. */
    static Path checkpointFile(Path directory, KeyMovement movement) {
        return directory.resolve("stream-" + movement.streamName() + ".checkpoint");
    }

    /**
     * Runs (or resumes) the stream to its end.
     *
     * @return how many entries were sent in this run
     * @throws IOException if the store cannot be read, a node does not take a batch (the message names
     *                     it), or the checkpoint cannot be kept
     */
    public long run() throws IOException {
        AtomicFile checkpoint = new AtomicFile(storage, checkpointFile(directory, movement));
        byte[] after = null;
        byte[] kept = checkpoint.read();
        if (kept != null) {
            String saved = new String(kept, StandardCharsets.UTF_8).trim();
            if (saved.equals(DONE)) {
                return 0;
            }
            after = Base64.getDecoder().decode(saved);
            LOG.info("resuming the stream of change {} after a checkpoint (stream {})", movement.id(), movement.streamName());
        }
        int selfIndex = movement.indexOf(self);
        if (!movement.maySend(selfIndex)) {
            // On the ring, the tokens alone show that this node loses no key: nothing to read.
            LOG.info("node {} sends nothing in the change of epoch {} (stream {}): its store is not scanned", self,
                    movement.id(), movement.streamName());
            keep(checkpoint, DONE);
            return 0;
        }
        List<String> targets = movement.afterNodes();
        List<List<Entry>> batches = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            batches.add(new ArrayList<>());
        }
        long[] gathered = new long[targets.size()];
        int rf = Math.max(movement.before().replicationFactor(), movement.after().replicationFactor());
        int[] out = new int[rf];
        int[] scratchB = new int[rf];
        int[] scratchA = new int[rf];
        byte[] lastKey = null;
        DaoProperties store = dao.properties();
        long storeBytes = Math.max(0, store.tableBytes());
        keysToScan = store.tableEntries();
        AtomicLong scanned = new AtomicLong();
        lane.backlog(() -> Math.max(0, storeBytes - scanned.get()));
        // One round of batches in flight while the scan gathers the next; its last key is kept once it is acknowledged.
        Round inFlight = null;
        long unpaid = 0;
        long roundBytes = 0;
        try (CloseableIterator<Entry> scan = dao.scan(after, null)) {
            while (scan.hasNext()) {
                Entry entry = scan.next();
                if (after != null && Arrays.equals(entry.key(), after)) {
                    continue;
                }
                long size = entry.key().length + (entry.isTombstone() ? 0 : entry.value().length) + 16L;
                unpaid += size;
                if (unpaid >= PACE_BYTES) {
                    lane.acquire(unpaid);
                    unpaid = 0;
                }
                scanned.addAndGet(size);
                keysScanned.incrementAndGet();
                lastKey = entry.key();
                int n = movement.targets(entry.key(), selfIndex, out, scratchB, scratchA);
                boolean full = false;
                for (int i = 0; i < n; i++) {
                    batches.get(out[i]).add(entry);
                    gathered[out[i]] += size;
                    roundBytes += size;
                    full |= gathered[out[i]] >= batchBytes || roundBytes >= 2L * batchBytes;
                }
                entriesSent.addAndGet(n);
                bytesSent.addAndGet(n * size);
                if (full) {
                    finish(inFlight, checkpoint);
                    inFlight = send(targets, batches, gathered, lastKey);
                    roundBytes = 0;
                }
            }
            lane.acquire(unpaid);
        } finally {
            lane.backlog(() -> 0);
        }
        finish(inFlight, checkpoint);
        finish(send(targets, batches, gathered, lastKey), null);
        keep(checkpoint, DONE);
        return entriesSent.get();
    }

    /** Batches sent to nodes, and the last key scanned when they were. */
    private record Round(List<CompletableFuture<Void>> pending, List<String> nodes, byte[] lastKey) {
    }

    /** Sends the batches gathered (and clears them) without waiting for the nodes' answers. */
    private Round send(List<String> targets, List<List<Entry>> batches, long[] gathered, byte[] lastKey) {
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            if (!batches.get(i).isEmpty()) {
                pending.add(sink.apply(targets.get(i), List.copyOf(batches.get(i))).toCompletableFuture());
                nodes.add(targets.get(i));
                batches.get(i).clear();
                gathered[i] = 0;
            }
        }
        return new Round(pending, nodes, lastKey);
    }

    /**
     * Waits until every node took its batch of {@code round} (none if null), then keeps its last key in
     * {@code checkpoint} (unless null): a resumed stream starts after it.
     */
    private static void finish(Round round, AtomicFile checkpoint) throws IOException {
        if (round == null) {
            return;
        }
        for (int i = 0; i < round.pending().size(); i++) {
            try {
                round.pending().get(i).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while streaming to " + round.nodes().get(i), e);
            } catch (ExecutionException | CompletionException e) {
                throw new IOException("node " + round.nodes().get(i) + " did not take a stream batch: " + e.getCause(),
                        e.getCause());
            }
        }
        if (checkpoint != null && round.lastKey() != null) {
            keep(checkpoint, Base64.getEncoder().encodeToString(round.lastKey()));
        }
    }

    private static void keep(AtomicFile checkpoint, String text) throws IOException {
        checkpoint.replace(text.getBytes(StandardCharsets.UTF_8));
    }
}
