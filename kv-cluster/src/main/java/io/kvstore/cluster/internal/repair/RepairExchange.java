package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * One anti-entropy exchange between two nodes, driven from {@code local}: both build the tree of the
 * keys they share, the trees are compared top-down, and for the differing segments both list their
 * versions page by page in key order; each side is then sent only the entries it lacks or holds older
 * ({@link KeyVersion#newerThan}); two different values of one timestamp are sent both ways
 * ({@link KeyVersion#conflictsWith}). Everything is read again when sent and stored under the usual
 * newest-wins rule, so writes going on meanwhile are never undone: at worst a key written during the
 * exchange is sent although it did not need to be.
 *
 * <p>An exchange covers a {@link KeyInterval}: the whole key space for anti-entropy, a refused interval
 * when a node refetches it to heal. Both sides scan and list that interval's keys only, so the cost of
 * refetching one damaged table is its interval's, not the store's. Versions a peer lists outside the
 * interval (a node that does not know intervals builds its tree over every key) are left out here, so
 * nothing outside it is ever sent or taken.
 *
 * <p>Memory is bounded whatever the store's size: two trees, the differing nodes of one level, one
 * page of versions per side and one batch of entries. Nothing blocks: the steps chain on
 * {@code executor}. A failure of either side (a peer killed, say) fails the whole stage at once; the
 * trees that were opened are closed as far as they can be (a tree left on a peer expires unused).
 */
public final class RepairExchange {
    /** Tree levels descended per round trip: 16 children of every differing node compared at once. */
    static final int LEVELS_PER_ROUND = 4;
    /** Most tree nodes asked for in one call. */
    public static final int MAX_INDEXES_PER_CALL = 1 << 16;
    /** Most versions one listing page holds. */
    public static final int VERSIONS_PER_PAGE = 4096;
    /** Most keys asked for, and entries sent, in one call. */
    public static final int KEYS_PER_BATCH = 1024;
    /** Bytes of entries after which a call reads no more keys. */
    public static final long BYTES_PER_BATCH = 4 << 20;

    private final RepairPeer local;
    private final RepairPeer peer;
    private final int replicationFactor;
    private final int depth;
    private final KeyInterval interval;
    private final Executor executor;
    private final RepairProgress progress;
    private final long started = System.nanoTime();
    private final long wireBytesBefore;
    private long localTree;
    private long peerTree;
    private long treeKeys;
    private int segmentsDiffering;
    private long hashesCompared;
    private long versionsCompared;
    private long keysSent;
    private long keysReceived;
    private long bytesSent;
    private long bytesReceived;

    private RepairExchange(RepairPeer local, RepairPeer peer, int replicationFactor, int depth, KeyInterval interval,
            Executor executor, RepairProgress progress) {
        this.local = local;
        this.peer = peer;
        this.replicationFactor = replicationFactor;
        this.depth = depth;
        this.interval = interval;
        this.executor = executor;
        this.progress = progress;
        this.wireBytesBefore = peer.wireBytes();
    }

    /**
     * Runs one exchange between {@code local} and {@code peer} over the keys of {@code interval} both
     * hold among the first {@code replicationFactor} replicas, with trees of {@code 2^depth} segments.
     *
     * @param interval the keys compared; {@link KeyInterval#ALL} for the whole store
     * @param executor runs the steps between calls (light work: comparing hashes, merging pages)
     */
    public static CompletionStage<RepairSummary> run(RepairPeer local, RepairPeer peer, int replicationFactor, int depth,
            KeyInterval interval, Executor executor) {
        return run(local, peer, replicationFactor, depth, interval, executor, RepairProgress.NONE);
    }

    /** {@link #run(RepairPeer, RepairPeer, int, int, KeyInterval, Executor)}, telling {@code progress} as it goes. */
    public static CompletionStage<RepairSummary> run(RepairPeer local, RepairPeer peer, int replicationFactor, int depth,
            KeyInterval interval, Executor executor, RepairProgress progress) {
        return new RepairExchange(local, peer, replicationFactor, depth, interval, executor, progress).run();
    }

    private CompletionStage<RepairSummary> run() {
        CompletableFuture<BuiltTree> localOpened = local.openTree(peer.node(), replicationFactor, depth, interval)
                .toCompletableFuture();
        CompletableFuture<BuiltTree> peerOpened = peer.openTree(local.node(), replicationFactor, depth, interval)
                .toCompletableFuture();
        CompletableFuture<RepairSummary> done = new CompletableFuture<>();
        CompletableFuture.allOf(localOpened, peerOpened)
                .thenComposeAsync(opened -> {
                    localTree = localOpened.join().id();
                    peerTree = peerOpened.join().id();
                    treeKeys = Math.max(0, localOpened.join().keys()) + Math.max(0, peerOpened.join().keys());
                    progress.treesBuilt(treeKeys);
                    return compare(0, new int[] {0});
                }, executor)
                .thenComposeAsync(this::exchange, executor)
                .whenComplete((ok, error) -> {
                    CompletableFuture<?> closedLocal = close(local, localOpened);
                    CompletableFuture<?> closedPeer = close(peer, peerOpened);
                    if (error != null) {
                        done.completeExceptionally(error);
                        return;
                    }
                    CompletableFuture.allOf(closedLocal, closedPeer).whenComplete((closed, closeError) ->
                            done.complete(summary()));
                });
        return done;
    }

    /** Closes the tree {@code peer} opened, if it did; a failure to close is not the exchange's failure. */
    private static CompletableFuture<?> close(RepairPeer peer, CompletableFuture<BuiltTree> opened) {
        if (!opened.isDone() || opened.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(null);
        }
        return peer.closeTree(opened.join().id()).toCompletableFuture().exceptionally(error -> null);
    }

    private RepairSummary summary() {
        return new RepairSummary(local.node(), peer.node(), interval, treeKeys, 1 << depth, segmentsDiffering,
                hashesCompared, versionsCompared, keysSent, keysReceived, bytesSent, bytesReceived, peer.wireBytes() - wireBytesBefore,
                System.nanoTime() - started);
    }

    // ---- the trees, top-down ----

    /** Compares the nodes {@code candidates} of {@code level}, then the children of those that differ. */
    private CompletionStage<BitSet> compare(int level, int[] candidates) {
        CompletableFuture<long[]> mine = hashes(local, localTree, level, candidates, 0, new long[candidates.length]);
        CompletableFuture<long[]> theirs = hashes(peer, peerTree, level, candidates, 0, new long[candidates.length]);
        return mine.thenCombine(theirs, (a, b) -> differing(candidates, a, b))
                .thenComposeAsync(differing -> {
                    hashesCompared += candidates.length;
                    if (differing.length == 0 || level == depth) {
                        BitSet segments = new BitSet(1 << depth);
                        for (int segment : differing) {
                            segments.set(segment);
                        }
                        segmentsDiffering = differing.length;
                        return CompletableFuture.completedFuture(segments);
                    }
                    int next = Math.min(depth, level + LEVELS_PER_ROUND);
                    return compare(next, descendants(differing, next - level));
                }, executor);
    }

    /** The hashes of {@code indexes} at {@code level}, asked for in calls of at most {@link #MAX_INDEXES_PER_CALL}. */
    private CompletableFuture<long[]> hashes(RepairPeer side, long tree, int level, int[] indexes, int from, long[] into) {
        if (from == indexes.length) {
            return CompletableFuture.completedFuture(into);
        }
        int to = Math.min(indexes.length, from + MAX_INDEXES_PER_CALL);
        int[] slice = from == 0 && to == indexes.length ? indexes : Arrays.copyOfRange(indexes, from, to);
        return side.hashes(tree, level, slice).toCompletableFuture().thenComposeAsync(hashes -> {
            if (hashes.length != slice.length) {
                throw new IllegalStateException(side.node() + " answered " + hashes.length + " hashes for " + slice.length + " nodes");
            }
            System.arraycopy(hashes, 0, into, from, hashes.length);
            return hashes(side, tree, level, indexes, to, into);
        }, executor);
    }

    private static int[] differing(int[] candidates, long[] mine, long[] theirs) {
        int[] differing = new int[candidates.length];
        int count = 0;
        for (int i = 0; i < candidates.length; i++) {
            if (mine[i] != theirs[i]) {
                differing[count++] = candidates[i];
            }
        }
        return Arrays.copyOf(differing, count);
    }

    private static int[] descendants(int[] nodes, int levels) {
        int fanOut = 1 << levels;
        int[] children = new int[nodes.length * fanOut];
        for (int i = 0; i < nodes.length; i++) {
            for (int c = 0; c < fanOut; c++) {
                children[i * fanOut + c] = (nodes[i] << levels) + c;
            }
        }
        return children;
    }

    // ---- the rows of the differing segments ----

    private CompletionStage<Void> exchange(BitSet segments) {
        return segments.isEmpty() ? CompletableFuture.completedFuture(null)
                : exchangePage(segments, null, peer.versions(peerTree, segments, null, null, VERSIONS_PER_PAGE));
    }

    /**
     * Takes the peer's page of versions after {@code cursor}, asks for its next page at once (the peer
     * scans while this side merges and sends), merges the page with this side's versions of the same
     * key range, sends what each side needs, and goes on with the next page.
     */
    private CompletionStage<Void> exchangePage(BitSet segments, byte[] cursor, CompletionStage<VersionPage> page) {
        return page.thenComposeAsync(listed -> {
            VersionPage theirs = withinInterval(listed);
            CompletionStage<VersionPage> next = theirs.complete() ? null
                    : peer.versions(peerTree, segments, theirs.through(), null, VERSIONS_PER_PAGE);
            Merge merge = new Merge(theirs.versions());
            byte[] bound = theirs.complete() ? null : theirs.through();
            return mergeLocal(segments, merge, cursor, bound).thenCompose(merged -> next == null
                    ? CompletableFuture.completedFuture(null)
                    : exchangePage(segments, theirs.through(), next));
        }, executor);
    }

    /**
     * {@code page} without the versions outside the exchange's interval, and complete once it got past
     * the interval's end: a peer that does not know intervals lists every key.
     */
    private VersionPage withinInterval(VersionPage page) {
        if (interval.isAll()) {
            return page;
        }
        List<KeyVersion> within = new ArrayList<>(page.versions().size());
        for (KeyVersion version : page.versions()) {
            if (interval.contains(version.key())) {
                within.add(version);
            }
        }
        boolean complete = page.complete() || interval.endsBefore(page.through());
        return within.size() == page.versions().size() && complete == page.complete() ? page
                : new VersionPage(within, complete, complete ? null : page.through());
    }

    /** Lists this side's versions in {@code (after, bound]} page by page, merging each with the peer's page. */
    private CompletionStage<Void> mergeLocal(BitSet segments, Merge merge, byte[] after, byte[] bound) {
        return local.versions(localTree, segments, after, bound, VERSIONS_PER_PAGE)
                .thenComposeAsync(mine -> {
                    merge.add(mine);
                    return transfer(merge.push, merge.pull).thenCompose(sent -> mine.complete()
                            ? CompletableFuture.completedFuture(null)
                            : mergeLocal(segments, merge.next(), mine.through(), bound));
                }, executor);
    }

    /** Sends {@code push} from here to the peer and brings {@code pull} from the peer here, batch by batch. */
    private CompletionStage<Void> transfer(List<byte[]> push, List<byte[]> pull) {
        return copy(local, peer, push, true).thenCompose(pushed -> copy(peer, local, pull, false));
    }

    private CompletionStage<Void> copy(RepairPeer from, RepairPeer to, List<byte[]> keys, boolean sending) {
        return keys.isEmpty() ? CompletableFuture.completedFuture(null) : copyRead(from, to, keys, 0, read(from, keys, 0), sending);
    }

    /** Reads a batch of the keys from {@code start} on. */
    private static CompletionStage<EntryBatch> read(RepairPeer from, List<byte[]> keys, int start) {
        int size = Math.min(keys.size() - start, KEYS_PER_BATCH);
        return from.entries(keys.subList(start, start + size), BYTES_PER_BATCH).thenApply(read -> {
            if (read.keysRead() < 1 || read.keysRead() > size) {
                throw new IllegalStateException(from.node() + " read " + read.keysRead() + " of " + size + " keys");
            }
            return read;
        });
    }

    /**
     * Stores the batch being read from {@code start} on {@code to}, reading the next batch meanwhile, and
     * goes on until every key is copied.
     */
    private CompletionStage<Void> copyRead(RepairPeer from, RepairPeer to, List<byte[]> keys, int start,
            CompletionStage<EntryBatch> reading, boolean sending) {
        return reading.thenComposeAsync(read -> {
            int next = start + read.keysRead();
            CompletionStage<EntryBatch> nextRead = next < keys.size() ? read(from, keys, next) : null;
            long bytes = 0;
            for (Entry entry : read.entries()) {
                bytes += RepairResponder.sizeOf(entry);
            }
            long count = read.entries().size();
            long size = bytes;
            return to.apply(read.entries()).thenCompose(applied -> {
                if (sending) {
                    keysSent += count;
                    bytesSent += size;
                } else {
                    keysReceived += count;
                    bytesReceived += size;
                }
                progress.copied(sending, count, size);
                return nextRead == null ? CompletableFuture.completedFuture(null)
                        : copyRead(from, to, keys, next, nextRead, sending);
            });
        }, executor);
    }

    /**
     * The merge of one page of the peer's versions with this side's pages over the same key range:
     * each of this side's pages yields the keys to push and to pull up to where that page ends.
     */
    private final class Merge {
        private final List<KeyVersion> theirs;
        private int next;
        List<byte[]> push = new ArrayList<>();
        List<byte[]> pull = new ArrayList<>();

        Merge(List<KeyVersion> theirs) {
            this.theirs = theirs;
        }

        /** Merges this side's page; a complete page also settles every remaining version of theirs. */
        void add(VersionPage mine) {
            versionsCompared += mine.versions().size();
            for (KeyVersion version : mine.versions()) {
                while (next < theirs.size() && Bytes.compare(theirs.get(next).key(), version.key()) < 0) {
                    pullTheirs();
                }
                if (next < theirs.size() && Bytes.compare(theirs.get(next).key(), version.key()) == 0) {
                    KeyVersion other = theirs.get(next++);
                    versionsCompared++;
                    if (version.newerThan(other)) {
                        push.add(version.key());
                    } else if (other.newerThan(version)) {
                        pull.add(other.key());
                    } else if (version.conflictsWith(other)) {
                        push.add(version.key());
                        pull.add(other.key());
                    }
                } else {
                    push.add(version.key());
                }
            }
            while (next < theirs.size() && (mine.complete() || Bytes.compare(theirs.get(next).key(), mine.through()) <= 0)) {
                pullTheirs();
            }
        }

        private void pullTheirs() {
            versionsCompared++;
            pull.add(theirs.get(next++).key());
        }

        /** This merge, with the keys already transferred forgotten. */
        Merge next() {
            push = new ArrayList<>();
            pull = new ArrayList<>();
            return this;
        }
    }
}
