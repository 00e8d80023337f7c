package io.kvstore.cluster.internal.repair;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.TimestampOutOfBoundsException;
import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.core.internal.util.SortedBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's side of anti-entropy exchanges, served from its {@link Dao}: what the internal repair
 * routes answer for other nodes, and the local side of a {@link RepairExchange} this node drives.
 *
 * <p>Every scan runs on the given executor (never the caller's thread, which may be an event loop),
 * reads the store through its range iterator (a snapshot; the store goes on taking writes) and is paced
 * by one {@link BudgetLane} shared by all the scans of the node: its own rate, or its share of the
 * node's background budget. A tree is held until it is closed or
 * has gone unused for {@link #TREE_IDLE_NANOS} (an exchange whose driver died); at most
 * {@link #MAX_TREES} at once, beyond which opening one fails with {@link RepairBusyException}.
 *
 * <p>Placement may change while the node runs (the cluster map changes): each tree is built and listed
 * with the placement current when it was opened.
 */
public final class RepairResponder implements RepairPeer {
    private static final Logger LOG = LoggerFactory.getLogger(RepairResponder.class);
    static final int MAX_TREES = 16;
    static final long TREE_IDLE_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** A listing page returns after this long scanning even when short, so no request waits long. */
    static final long PAGE_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** Fixed cost counted per entry by the scans' lane: timestamp, lengths, framing. */
    private static final int ENTRY_OVERHEAD_BYTES = 16;

    private final String self;
    private final Dao dao;
    private final Supplier<Partitioner> placement;
    private final Executor scans;
    private final HybridClock clock;
    private final BudgetLane scanLane;
    private final Map<Long, Tree> trees = new ConcurrentHashMap<>();

    /**
     * @param self               this node as named in {@code partitioner.nodes()}
     * @param scans              runs scans, lookups and writes to the store (may block)
     * @param clock              observes the timestamps of entries applied here
     * @param scanBytesPerSecond pace of this node's repair scans; {@code 0} for none
     */
    public RepairResponder(String self, Dao dao, Partitioner partitioner, Executor scans, HybridClock clock,
            long scanBytesPerSecond) {
        this(self, dao, constant(partitioner), scans, clock, scanBytesPerSecond);
        indexOf(partitioner, self);
    }

    /**
     * A responder whose placement follows the cluster map: {@code placement} gives the current one, over
     * the nodes that own ranges. While this node is not among them (it is joining, or it left), it
     * takes entries applied to it but builds no tree.
     */
    public RepairResponder(String self, Dao dao, Supplier<Partitioner> placement, Executor scans, HybridClock clock,
            long scanBytesPerSecond) {
        this(self, dao, placement, scans, clock, fixedLane(scanBytesPerSecond));
    }

    /** A responder whose placement follows the cluster map and whose scans draw from {@code scanLane}. */
    public RepairResponder(String self, Dao dao, Supplier<Partitioner> placement, Executor scans, HybridClock clock,
            BudgetLane scanLane) {
        this.self = Objects.requireNonNull(self, "self");
        this.dao = Objects.requireNonNull(dao, "dao");
        this.placement = Objects.requireNonNull(placement, "placement");
        this.scans = Objects.requireNonNull(scans, "scans");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.scanLane = Objects.requireNonNull(scanLane, "scanLane");
    }

    /** A lane of scans at {@code scanBytesPerSecond} ({@code >= 0}; 0: no limit) shared with no other work. */
    private static BudgetLane fixedLane(long scanBytesPerSecond) {
        if (scanBytesPerSecond < 0) {
            throw new IllegalArgumentException("scan bytes per second must be >= 0, got " + scanBytesPerSecond);
        }
        return BackgroundBudget.fixed().lane(BackgroundWork.REPAIR, scanBytesPerSecond);
    }

    private static Supplier<Partitioner> constant(Partitioner partitioner) {
        Objects.requireNonNull(partitioner, "partitioner");
        return () -> partitioner;
    }

    /** The placement repair follows now. */
    Partitioner placement() {
        return placement.get();
    }

    @Override
    public String node() {
        return self;
    }

    /** The key intervals this node's store refuses now because a table of them was damaged. */
    List<QuarantinedInterval> quarantined() {
        return dao.health().quarantined();
    }

    /**
     * Serves again, on the scans executor, each of {@code refetched} that the store still refuses, once a
     * repair with every peer sharing its keys has written them here again; an interval the store refuses
     * within one of them that is not in {@code refetched} (quarantined since) keeps that one refused.
     * Completes with how many it healed.
     */
    CompletionStage<Integer> heal(List<QuarantinedInterval> refetched) {
        return CompletableFuture.supplyAsync(() -> {
            int healed = 0;
            for (QuarantinedInterval interval : refetched) {
                List<QuarantinedInterval> within = new ArrayList<>();
                for (QuarantinedInterval now : dao.health().quarantined()) {
                    if (now.within(interval.from(), interval.to())) {
                        within.add(now);
                    }
                }
                if (!within.contains(interval) || !refetched.containsAll(within)) {
                    continue;
                }
                try {
                    healed += dao.healInterval(interval.from(), interval.to());
                } catch (IOException e) {
                    throw new UncheckedIOException("healing " + interval.describe() + " on " + self + " failed", e);
                }
            }
            if (healed > 0) {
                LOG.info("{} refetched and healed {} quarantined key intervals", self, healed);
            }
            return healed;
        }, scans);
    }

    @Override
    public CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
        Tree held;
        try {
            held = start(partner, replicationFactor, depth, interval);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return held.built.thenApply(ignored -> new BuiltTree(held.id, held.tree.entries()));
    }

    /**
     * Starts building a tree (see {@link #openTree}) and returns its id at once; {@link #treeBuilt}
     * tells when it is ready.
     *
     * @throws IllegalArgumentException for an unknown or self partner, a replication factor outside
     *                                  {@code [1, nodes]} or a depth outside {@code [1, 20]}
     * @throws RepairBusyException      if this node already holds {@link #MAX_TREES} trees
     */
    public long startTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
        return start(partner, replicationFactor, depth, interval).id;
    }

    private Tree start(String partner, int replicationFactor, int depth, KeyInterval interval) {
        Objects.requireNonNull(interval, "interval");
        Partitioner partitioner = placement.get();
        int partnerIndex = indexOf(partitioner, partner);
        if (partner.equals(self)) {
            throw new IllegalArgumentException("a repair partner must be another node than " + self);
        }
        int selfIndex = indexOf(partitioner, self);
        int nodes = partitioner.nodes().size();
        if (replicationFactor < 1 || replicationFactor > nodes) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " outside [1, " + nodes + "]");
        }
        SegmentTree tree = new SegmentTree(depth);
        long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
        Tree held = new Tree(id, partner, replicationFactor, partitioner, selfIndex, partnerIndex, interval, tree);
        synchronized (trees) {
            expireIdleTrees();
            if (trees.size() >= MAX_TREES) {
                throw new RepairBusyException(self + " already holds " + trees.size() + " repair trees; retry later");
            }
            trees.put(id, held);
        }
        try {
            CompletableFuture.runAsync(() -> scan(held), scans).whenComplete((ok, error) -> {
                if (error != null) {
                    trees.remove(id);
                    held.built.completeExceptionally(error);
                } else {
                    held.built.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            trees.remove(id);
            throw new RepairBusyException(self + " is shutting down");
        }
        return held;
    }

    /**
     * Completes with the entries tree {@code id} holds once it is built; fails if it is unknown or its
     * scan failed.
     */
    public CompletionStage<Long> treeBuilt(long id) {
        try {
            Tree held = tree(id);
            return held.built.thenApply(built -> held.tree.entries());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<long[]> hashes(long id, int level, int[] indexes) {
        try {
            Tree held = tree(id);
            if (!held.built.isDone()) {
                throw new IllegalStateException("repair tree " + id + " of " + self + " is still being built");
            }
            long[] hashes = new long[indexes.length];
            for (int i = 0; i < indexes.length; i++) {
                hashes[i] = held.tree.hash(level, indexes[i]);
            }
            return CompletableFuture.completedFuture(hashes);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<VersionPage> versions(long id, BitSet segments, byte[] after, byte[] upTo, int maxVersions) {
        Tree held;
        try {
            held = tree(id);
            if (maxVersions < 1) {
                throw new IllegalArgumentException("max versions must be >= 1, got " + maxVersions);
            }
            if (segments.length() > 1 << held.tree.depth()) {
                throw new IllegalArgumentException("segment " + (segments.length() - 1) + " outside a tree of "
                        + (1 << held.tree.depth()) + " segments");
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.supplyAsync(() -> listVersions(held, segments, after, upTo, maxVersions), scans);
    }

    @Override
    public CompletionStage<EntryBatch> entries(List<byte[]> keys, long maxBytes) {
        return CompletableFuture.supplyAsync(() -> {
            List<Entry> found = new ArrayList<>();
            long bytes = 0;
            int read = 0;
            while (read < keys.size() && (read == 0 || bytes < maxBytes)) {
                Entry entry = get(keys.get(read++));
                if (entry != null) {
                    found.add(entry);
                    bytes += sizeOf(entry);
                }
            }
            return new EntryBatch(found, read);
        }, scans);
    }

    @Override
    public CompletionStage<Void> apply(List<Entry> entries) {
        return store(entries, false);
    }

    /**
     * {@link #apply} for a batch in strictly increasing key order, stored as a bulk load ({@link Dao#ingest}):
     * a stream of keys a node gains, which the store may write as tables straight into its levels.
     *
     * @throws IllegalArgumentException at once, before anything is stored, if the keys are out of order
     */
    public CompletionStage<Void> ingest(List<Entry> entries) {
        SortedBatch.requireStrictlyIncreasing(entries);
        return store(entries, true);
    }

    private CompletionStage<Void> store(List<Entry> entries, boolean ingest) {
        // As a replicated write is: an entry from the future would pin its key and drag the clock along.
        for (Entry entry : entries) {
            if (!clock.accepts(entry.timestamp())) {
                return CompletableFuture.failedFuture(new TimestampOutOfBoundsException("repaired entry of key '"
                        + Bytes.toDebugString(entry.key()) + "' timestamped " + entry.timestamp() + ", more than "
                        + HybridClock.MAX_AHEAD_MILLIS + " ms past this node's clock: none of the " + entries.size()
                        + " entries applied"));
            }
        }
        return CompletableFuture.runAsync(() -> {
            for (Entry entry : entries) {
                clock.observe(entry.timestamp());
            }
            if (ingest) {
                try {
                    dao.ingest(entries);
                } catch (IOException e) {
                    throw new UncheckedIOException("ingesting a batch of " + entries.size() + " entries on " + self
                            + " failed", e);
                }
                return;
            }
            for (Entry entry : entries) {
                try {
                    dao.upsert(entry);
                } catch (IOException e) {
                    throw new UncheckedIOException("applying a repaired entry on " + self + " failed: " + entry, e);
                }
            }
        }, scans);
    }

    @Override
    public CompletionStage<Void> closeTree(long id) {
        Tree held = trees.remove(id);
        if (held != null) {
            held.closed = true;
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Trees held now (being built or built). */
    public int openTrees() {
        return trees.size();
    }

    /** Approximate bytes an entry takes on the wire and in the scans' lane. */
    static long sizeOf(Entry entry) {
        return entry.key().length + (entry.isTombstone() ? 0 : entry.value().length) + ENTRY_OVERHEAD_BYTES;
    }

    private void scan(Tree held) {
        long started = System.nanoTime();
        SharedKeys shared = held.sharedKeys();
        long scanned = 0;
        try (CloseableIterator<Entry> it = AvailableScan.of(dao, held.interval.from(), held.interval.to())) {
            while (it.hasNext()) {
                Entry entry = it.next();
                scanLane.acquire(sizeOf(entry));
                if ((++scanned & 1023) == 0 && (held.closed || Thread.currentThread().isInterrupted())) {
                    throw new IllegalStateException("repair tree of " + self + " for " + held.partner
                            + " was closed while being built");
                }
                if (shared.contains(entry.key())) {
                    held.tree.add(entry.key(), entry.timestamp(), entry.isTombstone(), KeyVersion.valueHashOf(entry));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("repair scan of " + self + " failed", e);
        }
        held.tree.seal();
        held.touch();
        LOG.info("repair tree of {} for {} built: {} of {} entries of {} shared, {} ms", self, held.partner,
                held.tree.entries(), scanned, held.interval, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private VersionPage listVersions(Tree held, BitSet segments, byte[] after, byte[] upTo, int maxVersions) {
        long deadline = System.nanoTime() + PAGE_SCAN_NANOS;
        int depth = held.tree.depth();
        SharedKeys shared = held.sharedKeys();
        List<KeyVersion> versions = new ArrayList<>();
        byte[] from = KeyInterval.maxFrom(held.interval.from(), after == null ? null : successor(after));
        byte[] to = KeyInterval.minTo(held.interval.to(), upTo == null ? null : successor(upTo));
        if (from != null && to != null && Bytes.compare(from, to) >= 0) {
            held.touch();
            return new VersionPage(versions, true, null);
        }
        try (CloseableIterator<Entry> it = AvailableScan.of(dao, from, to)) {
            while (it.hasNext()) {
                Entry entry = it.next();
                scanLane.acquire(sizeOf(entry));
                byte[] key = entry.key();
                if (segments.get(SegmentTree.segmentOf(key, depth)) && shared.contains(key)) {
                    versions.add(KeyVersion.of(entry));
                }
                if (versions.size() >= maxVersions || System.nanoTime() - deadline > 0) {
                    held.touch();
                    return it.hasNext() ? new VersionPage(versions, false, key) : new VersionPage(versions, true, null);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("repair listing of " + self + " failed", e);
        }
        held.touch();
        return new VersionPage(versions, true, null);
    }

    /** The smallest key after {@code key} in unsigned byte order. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private Entry get(byte[] key) {
        try {
            return dao.get(key);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + Bytes.toDebugString(key) + " for repair on " + self + " failed", e);
        }
    }

    private Tree tree(long id) {
        Tree held = trees.get(id);
        if (held == null) {
            throw new IllegalArgumentException("no repair tree " + id + " on " + self + " (closed, expired or never opened)");
        }
        held.touch();
        return held;
    }

    private static int indexOf(Partitioner partitioner, String node) {
        int index = partitioner.nodes().indexOf(node);
        if (index < 0) {
            throw new IllegalArgumentException("node " + node + " is not in the cluster " + partitioner.nodes());
        }
        return index;
    }

    private void expireIdleTrees() {
        long now = System.nanoTime();
        Iterator<Map.Entry<Long, Tree>> it = trees.entrySet().iterator();
        while (it.hasNext()) {
            Tree held = it.next().getValue();
            if (held.built.isDone() && now - held.lastUsedNanos > TREE_IDLE_NANOS) {
                LOG.info("repair tree of {} for {} unused for {} s: dropped", self, held.partner,
                        TimeUnit.NANOSECONDS.toSeconds(TREE_IDLE_NANOS));
                held.closed = true;
                it.remove();
            }
        }
    }

    private static final class Tree {
        final long id;
        final String partner;
        final int replicationFactor;
        /** The placement the tree was opened with, and both sides' indexes in it. */
        final Partitioner partitioner;
        final int selfIndex;
        final int partnerIndex;
        /** The keys the tree covers: its scan and its listings read no other. */
        final KeyInterval interval;
        final SegmentTree tree;
        final CompletableFuture<Void> built = new CompletableFuture<>();
        volatile boolean closed;
        volatile long lastUsedNanos = System.nanoTime();

        Tree(long id, String partner, int replicationFactor, Partitioner partitioner, int selfIndex, int partnerIndex,
             KeyInterval interval, SegmentTree tree) {
            this.id = id;
            this.partner = partner;
            this.replicationFactor = replicationFactor;
            this.partitioner = partitioner;
            this.selfIndex = selfIndex;
            this.partnerIndex = partnerIndex;
            this.interval = interval;
            this.tree = tree;
        }

        /** The keys both sides hold; one per scan (it is not thread-safe). */
        SharedKeys sharedKeys() {
            return new SharedKeys(partitioner, replicationFactor, selfIndex, partnerIndex);
        }

        void touch() {
            lastUsedNanos = System.nanoTime();
        }
    }
}
