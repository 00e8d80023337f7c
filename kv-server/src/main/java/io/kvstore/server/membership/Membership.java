package io.kvstore.server.membership;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.LocalReplica;
import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.HintedHandoff;
import io.kvstore.cluster.internal.Scheduler;
import io.kvstore.cluster.internal.membership.ClusterMapStore;
import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.internal.membership.KeyStreamer;
import io.kvstore.cluster.internal.membership.MapChanges;
import io.kvstore.cluster.internal.membership.MapLog;
import io.kvstore.cluster.internal.membership.MapRelay;
import io.kvstore.cluster.internal.membership.PlacementHistory;
import io.kvstore.cluster.internal.membership.StreamProgress;
import io.kvstore.cluster.internal.metadata.EpochAcceptor;
import io.kvstore.cluster.internal.metadata.EpochProposer;
import io.kvstore.cluster.internal.metadata.EpochReply;
import io.kvstore.cluster.internal.metadata.EpochRequest;
import io.kvstore.cluster.internal.metadata.MetadataGroup;
import io.kvstore.cluster.internal.metadata.NoMajorityException;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.core.AtomicFile;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.internode.BatchCounters;
import io.kvstore.server.internode.EpochFence;
import io.kvstore.server.internode.HttpRepairPeer;
import io.kvstore.server.internode.HttpReplica;
import io.kvstore.server.internode.InternodeClients;
import io.kvstore.server.internode.MapDivergence;
import io.kvstore.server.internode.MembershipClient;
import io.kvstore.server.internode.Topology;
import io.kvstore.server.security.NodeSecurity;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's membership: its copy of the cluster map and the {@link Topology} the map makes, swapped
 * whole when a newer map arrives (pushed by the claimant, pulled from a peer every
 * {@link #PULL_INTERVAL_MILLIS}, or pulled at once when a membership request carries a higher epoch),
 * and this node's streams of keys when the map changes. The changes themselves are made by the
 * claimant ({@link MapChanges}). It is the {@link EpochFence} of this node's internal routes and of its
 * requests to its peers.
 */
public final class Membership implements Supplier<Topology>, EpochFence, MapLog, AutoCloseable {
    /** How often each peer is pinged when there is no traffic to tell whether it is up. */
    public static final Duration PROBE_INTERVAL = Duration.ofMillis(500);
    /** The subdirectory of the data directory holding the hint store. */
    static final String HINTS_DIRECTORY = "hints";
    /** Hints are few and small while the cluster is healthy: a small memtable keeps their log short. */
    static final long HINTS_FLUSH_THRESHOLD_BYTES = 4L << 20;
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);
    /** How often a node asks one peer (in turn) for its map, so that a node that missed a push catches up. */
    static final long PULL_INTERVAL_MILLIS = 1000;
    private static final long REQUEST_TIMEOUT_MILLIS = 10_000;
    private final NodeDrain drain = new NodeDrain(this);
    private static final long STREAM_BATCH_TIMEOUT_MILLIS = 60_000;
    /** How often the claimant looks for a change left in progress that nobody drives. */
    static final long RESUME_INTERVAL_MILLIS = 10_000;
    /** The acceptor's state of the epoch log, in the data directory. */
    static final String ACCEPTOR_FILE = "metadata-acceptor";
    /** How long a phase of the epoch log waits for a majority before its round is tried again. */
    private static final long PHASE_TIMEOUT_MILLIS = 1_000;
    /** How long a commit goes on trying to get a majority of the metadata group. */
    static final long COMMIT_TIMEOUT_MILLIS = 10_000;
    /**
     * How long a value this node's acceptor accepted for the next epoch may stay unlearned before this
     * node finishes its commit: its proposer may have died between getting it chosen and telling anyone.
     */
    private static final long LEFT_ACCEPTED_MILLIS = 5_000;

    private final KvServerConfig config;
    private final ReplicationOptions replication;
    private final Vertx vertx;
    private final Dao dao;
    private final HybridClock clock;
    private final LocalReplica local;
    private final WebClient replicaClient;
    private final WebClient client;
    private final MembershipClient membershipClient;
    private final ClusterMapStore store;
    /** Wraps the replica of each peer (with metrics, say); applied once per peer. */
    private final java.util.function.BiFunction<String, Replica, Replica> peerWrapper;
    private final BatchCounters batches = new BatchCounters();
    /** This node's streams by {@link KeyMovement#streamName()}: a failover plan of a change is a stream of its own. */
    private final Map<String, CompletableFuture<Long>> streams = new ConcurrentHashMap<>();
    /** How this node reaches the others for its changes and for the maps it hands on; set by {@link #changes}. */
    private volatile HttpMembershipTransport transport;
    /** The streamer of each of {@link #streams} once it started, for its progress. */
    private final Map<String, KeyStreamer> streamers = new ConcurrentHashMap<>();
    private final ExecutorService worker;
    /** Runs the streams of key movements, at the store's background priority: they yield the cores to requests. */
    private final ExecutorService streamer;
    private final AtomicInteger nextPeer = new AtomicInteger();
    private final MapDivergence divergence;
    /** One pull at a time on a higher epoch: a burst of requests carrying it makes one. */
    private final java.util.concurrent.atomic.AtomicBoolean pulling = new java.util.concurrent.atomic.AtomicBoolean();
    /** The hint store is opened once and follows every topology; null when off. */
    private HintedHandoff hints;
    /** The node's background budget lane streams draw from; null: each stream at its own rate. */
    private volatile BudgetLane streamLane;
    private volatile Topology topology;
    /** Completed, and replaced, when a map is installed: what a request of a newer epoch waits for. */
    private volatile CompletableFuture<Void> nextMap = new CompletableFuture<>();
    private final PlacementHistory placements = new PlacementHistory();
    /** Read repairs made by the coordinators of earlier maps, so that the count goes on across maps. */
    private final LongAdder earlierReadRepairs = new LongAdder();
    private long pullTimer = -1;
    private EpochAcceptor acceptor;
    private EpochProposer proposer;
    /** When this node first saw its acceptor hold an unlearned value of the next epoch; 0 when none. */
    private long leftAcceptedSinceMillis;
    private final java.util.concurrent.atomic.AtomicBoolean finishing = new java.util.concurrent.atomic.AtomicBoolean();

    public Membership(KvServerConfig config, NodeSecurity security, ReplicationOptions replication, Vertx vertx, Dao dao,
               HybridClock clock,
               LocalReplica local, WebClient replicaClient, ClusterMapStore store,
               java.util.function.BiFunction<String, Replica, Replica> peerWrapper) {
        this.peerWrapper = peerWrapper;
        this.config = config;
        this.replication = replication;
        this.vertx = vertx;
        this.dao = dao;
        this.clock = clock;
        this.local = local;
        this.replicaClient = replicaClient;
        this.store = store;
        this.client = InternodeClients.create(vertx, security, new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                        .setKeepAliveTimeout(InternodeClients.keepAliveSeconds(config.network().idleTimeout()))
                        .setConnectTimeout((int) Math.min(REQUEST_TIMEOUT_MILLIS, config.network().replicaTimeout().toMillis() * 2)),
                new PoolOptions().setHttp1MaxSize(2));
        this.membershipClient = new MembershipClient(client, config.self(), this::epoch, REQUEST_TIMEOUT_MILLIS);
        this.divergence = new MapDivergence(config.self(), () -> {
            Topology current = topology;
            return current == null ? null : current.map();
        });
        this.worker = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "kv-membership");
            t.setDaemon(true);
            return t;
        });
        this.streamer = Executors.newCachedThreadPool(config.storeOptions().backgroundPriority().threadFactory("kv-stream"));
    }

    /** Builds the first topology from the stored map, with the hint store if hinted handoff is on. */
    public void open() throws IOException {
        ClusterMap map = store.current();
        List<Replica> replicas = replicasOf(map, map.readOwners());
        FailureDetector detector = detector(map, replicas);
        placements.add(map);
        if (replication.hints()) {
            hints = openHints(map.readOwners(), replicas, detector);
            hints.deliverOnlyWhere(placements::isReplica);
        }
        topology = build(map, replicas, detector);
        acceptor = EpochAcceptor.open(EpochAcceptor.Persistence.of(new AtomicFile(config.storeOptions().storage(),
                config.dataDirectory().resolve(ACCEPTOR_FILE))), () -> {
                    ClusterMap committed = store.current();
                    return committed == null ? null : new EpochAcceptor.Committed(committed.epoch(), bytes(committed));
                });
        proposer = new EpochProposer(config.self(), this::sendVote, scheduler(),
                System::currentTimeMillis, () -> ThreadLocalRandom.current().nextLong(), PHASE_TIMEOUT_MILLIS);
    }

    /**
     * The driver of this node's changes of the map, over the membership routes.
     *
     * @param cleanup           this node's cleanup, asked for (as every owner's) when a change completed
     * @param unreachableMillis how long a node streaming keys may stay unreachable before the change fails
     */
    public MapChanges changes(NodeCleanup cleanup, long unreachableMillis) {
        transport = new HttpMembershipTransport(config.self(), membershipClient, cleanup, worker);
        return new MapChanges(config.self(), this, transport, scheduler(), System::currentTimeMillis, unreachableMillis);
    }

    /**
     * Hands {@code map}, pushed here, on to {@code passOn} within {@code millis} ({@link MapRelay}); what
     * became of them.
     */
    CompletionStage<MapRelay.Outcome> handOn(ClusterMap map, List<String> passOn, long millis) {
        HttpMembershipTransport relay = transport;
        if (relay == null) {
            return CompletableFuture.completedFuture(MapRelay.notPassedOn(passOn));
        }
        CompletableFuture<MapRelay.Outcome> outcome = new CompletableFuture<>();
        runOnWorker(() -> MapRelay.handOn(map, passOn, millis, relay, scheduler()).whenComplete((done, error) -> {
            if (error != null) {
                outcome.completeExceptionally(error);
            } else {
                outcome.complete(done);
            }
        }));
        return outcome;
    }

    /** Runs tasks later on the membership worker, by the node's timers. */
    Scheduler scheduler() {
        return (delay, task) -> vertx.setTimer(Math.max(1, delay), id -> runOnWorker(task));
    }

    /** This node's acceptor of the epoch log. */
    EpochAcceptor acceptor() {
        return acceptor;
    }

    private java.util.concurrent.CompletionStage<EpochReply> sendVote(String node, EpochRequest request) {
        if (node.equals(config.self())) {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return acceptor.handle(request);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, worker);
        }
        return membershipClient.epochVote(node, request).toCompletionStage();
    }

    private void runOnWorker(Runnable task) {
        if (!worker.isShutdown()) {
            try {
                worker.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    private static byte[] bytes(ClusterMap map) {
        return ClusterMapCodec.toJson(map).getBytes(StandardCharsets.UTF_8);
    }

    private static ClusterMap map(byte[] value) {
        return ClusterMapCodec.fromJson(new String(value, StandardCharsets.UTF_8));
    }

    /**
     * Starts the periodic pull of peers' maps (and the hint replay of the first topology), and runs
     * {@code resumeChanges} every {@value #RESUME_INTERVAL_MILLIS} ms: a change whose map could not be
     * committed, nor rolled back, while the metadata group had no majority is driven on once it has.
     */
    public void start(Runnable resumeChanges) {
        if (hints != null) {
            hints.start();
        }
        long ticksPerResume = RESUME_INTERVAL_MILLIS / PULL_INTERVAL_MILLIS;
        AtomicInteger ticks = new AtomicInteger();
        pullTimer = vertx.setPeriodic(PULL_INTERVAL_MILLIS, id -> {
            pullFromNextPeer();
            finishLeftAccepted();
            if (ticks.incrementAndGet() % ticksPerResume == 0) {
                runOnWorker(resumeChanges);
            }
        });
    }

    @Override
    public Topology get() {
        return topology;
    }

    public ClusterMap map() {
        return topology.map();
    }

    /** This node's map epoch; 0 before it has a map (a joining node asking for one). */
    @Override
    public long epoch() {
        Topology current = topology;
        return current == null ? 0 : current.map().epoch();
    }

    String self() {
        return config.self();
    }

    public MembershipClient client() {
        return membershipClient;
    }

    /** This node's draining on stop, and its peers' announcements of theirs. */
    public NodeDrain drain() {
        return drain;
    }

    public ExecutorService worker() {
        return worker;
    }

    /** Finds the peers that hold another map of this node's epoch. */
    public MapDivergence divergence() {
        return divergence;
    }

    public HintedHandoff hints() {
        return hints;
    }

    /** From now on the streams this node starts scan at {@code lane}'s share of the node's background budget. */
    public void drawStreamsFrom(BudgetLane lane) {
        this.streamLane = lane;
    }

    /** Versions read repair wrote since this node started, on every map it has been on. */
    /** How this node's calls to its peers went out in batches. */
    public BatchCounters batches() {
        return batches;
    }

    public long readRepairs() {
        return earlierReadRepairs.sum() + topology.coordinator().readRepairs();
    }

    /** Keeps {@code map} and switches to its topology if it is newer than this node's. Blocking (a file sync). */
    synchronized boolean adopt(ClusterMap map) throws IOException {
        if (!store.adopt(map)) {
            return false;
        }
        install(map);
        return true;
    }

    /**
     * Commits {@code next} as the map of the epoch after {@code expectedEpoch} through the epoch log: it
     * is kept and installed here only once a majority of the metadata group the current map names
     * accepted it. Returns false, having installed the map that won, if another map was decided for
     * that epoch (or a later one) first, or if this node's map is no longer at {@code expectedEpoch}.
     * Blocking (a round trip to the group, file syncs).
     *
     * @throws NoMajorityException if no majority of the group answered within {@value #COMMIT_TIMEOUT_MILLIS} ms
     */
    private boolean commitThroughTheLog(long expectedEpoch, ClusterMap next) throws IOException {
        ClusterMap current = map();
        if (current.epoch() != expectedEpoch || next.epoch() != expectedEpoch + 1) {
            return false;
        }
        EpochProposer.Outcome outcome = await(proposer.propose(next.epoch(), MetadataGroup.after(current), bytes(next),
                COMMIT_TIMEOUT_MILLIS));
        if (outcome instanceof EpochProposer.Outcome.Chosen chosen) {
            adopt(map(chosen.value()));
            return chosen.ours();
        }
        if (outcome instanceof EpochProposer.Outcome.Superseded later) {
            adopt(map(later.value()));
            return false;
        }
        EpochProposer.Outcome.NoQuorum none = (EpochProposer.Outcome.NoQuorum) outcome;
        throw new NoMajorityException(none.reason(), none.valueSent());
    }

    /** {@inheritDoc} Runs on the membership worker: a round trip to the group and file syncs. */
    @Override
    public CompletionStage<Boolean> commit(long expectedEpoch, ClusterMap next, boolean force) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return force ? commitUnsafely(expectedEpoch, next) : commitThroughTheLog(expectedEpoch, next);
            } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, worker);
    }

    /**
     * Keeps {@code next} without asking the metadata group, if this node's map is still at
     * {@code expectedEpoch}: only for an operator's forced removal when no majority is left. Another
     * side of a partition may commit its own map of that epoch meanwhile.
     */
    private synchronized boolean commitUnsafely(long expectedEpoch, ClusterMap next) throws IOException {
        LOG.warn("node {} commits the map of epoch {} WITHOUT a majority of the metadata group {} (forced by an operator): {}",
                config.self(), next.epoch(), MetadataGroup.after(map()).members(), next);
        if (!store.compareAndSet(expectedEpoch, next)) {
            return false;
        }
        install(next);
        return true;
    }

    /**
     * If this node's acceptor has held a value of the next epoch for a while that no node taught this
     * node, a proposer died between getting it chosen and pushing it: commits it (or whatever the group
     * decided instead) and pushes the result, so that the log never stops at an epoch only acceptors know.
     */
    private void finishLeftAccepted() {
        if (acceptor == null) {
            return;
        }
        Optional<EpochAcceptor.Pending> left = acceptor.acceptedAfter(epoch());
        long now = System.currentTimeMillis();
        if (left.isEmpty()) {
            leftAcceptedSinceMillis = 0;
            return;
        }
        if (leftAcceptedSinceMillis == 0) {
            leftAcceptedSinceMillis = now;
        }
        if (now - leftAcceptedSinceMillis < LEFT_ACCEPTED_MILLIS || !finishing.compareAndSet(false, true)) {
            return;
        }
        runOnWorker(() -> {
            try {
                ClusterMap current = map();
                EpochProposer.Outcome outcome = await(proposer.propose(left.get().epoch(), MetadataGroup.after(current),
                        left.get().value(), COMMIT_TIMEOUT_MILLIS));
                byte[] decided = outcome instanceof EpochProposer.Outcome.Chosen chosen ? chosen.value()
                        : outcome instanceof EpochProposer.Outcome.Superseded later ? later.value() : null;
                if (decided != null) {
                    ClusterMap map = map(decided);
                    LOG.info("node {} finishes the commit of epoch {} its proposer left unfinished", config.self(), map.epoch());
                    adopt(map);
                    pushToAll(map, current.urls());
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("node {}: cannot finish the commit of epoch {} left accepted: {}", config.self(), left.get().epoch(),
                        e.getMessage());
            } finally {
                leftAcceptedSinceMillis = 0;
                finishing.set(false);
            }
        });
    }

    private void pushToAll(ClusterMap map, List<String> others) {
        Set<String> nodes = new LinkedHashSet<>(map.urls());
        nodes.addAll(others);
        nodes.remove(config.self());
        for (String node : nodes) {
            membershipClient.push(node, map, List.of(), 0).onFailure(error -> LOG.debug("cannot push the map of epoch {} to {}: {}",
                    map.epoch(), node, error.getMessage()));
        }
    }

    private static EpochProposer.Outcome await(java.util.concurrent.CompletionStage<EpochProposer.Outcome> outcome)
            throws IOException {
        try {
            // The proposer ends by its own deadline; this bound only guards against a bug there.
            return outcome.toCompletableFuture().get(COMMIT_TIMEOUT_MILLIS + 5 * PHASE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the epoch log's proposal did not end: " + e, e);
        }
    }

    /**
     * Switches every consumer of the map to {@code map}: requests with one volatile write of the new
     * topology, then hinted handoff (which drops the hints of nodes that left). Anti-entropy and
     * cluster-wide ranges read the topology at the start of each run or request.
     */
    private void install(ClusterMap map) {
        Topology previous = topology;
        List<Replica> replicas = replicasOf(map, map.readOwners());
        FailureDetector detector = detector(map, replicas);
        placements.add(map);
        topology = build(map, replicas, detector);
        CompletableFuture<Void> reached = nextMap;
        nextMap = new CompletableFuture<>();
        reached.complete(null);
        if (hints != null) {
            hints.follow(map.readOwners(), replicas, detector);
        }
        if (previous != null) {
            previous.detector().close();
            earlierReadRepairs.add(previous.coordinator().readRepairs());
        }
        LOG.info("node {} now on cluster map epoch {}: {}", config.self(), map.epoch(), map);
    }

    /**
     * A request carried {@code epoch}: if it is newer than this node's, pulls the map from {@code node}
     * if that is a member of this node's map, and from the next member otherwise. The headers come from
     * any client: a node named only by them (a newcomer, or an address an attacker chose) is never asked,
     * and a member asked for a newer map it does not have changes nothing.
     */
    @Override
    public void observe(long epoch, String node) {
        if (epoch > epoch() && pulling.compareAndSet(false, true)) {
            ClusterMap map = map();
            if (node != null && !node.equals(config.self()) && map.contains(node)) {
                pull(node);
            } else {
                pullFromNextPeer().onComplete(done -> pulling.set(false));
            }
        }
    }

    @Override
    public CompletionStage<Void> reached(long epoch) {
        CompletableFuture<Void> next = nextMap;
        return epoch() >= epoch ? CompletableFuture.completedFuture(null) : next.thenCompose(done -> reached(epoch));
    }

    @Override
    public long movedSince(long epoch, byte[] key) {
        return placements.movedSince(epoch, key);
    }

    private io.vertx.core.Future<ClusterMap> pullFromNextPeer() {
        List<String> nodes = new ArrayList<>(map().urls());
        nodes.remove(config.self());
        if (nodes.isEmpty()) {
            return io.vertx.core.Future.succeededFuture();
        }
        return pullFrom(nodes.get(Math.floorMod(nextPeer.getAndIncrement(), nodes.size())));
    }

    private void pull(String node) {
        pullFrom(node).onComplete(done -> pulling.set(false));
    }

    private io.vertx.core.Future<ClusterMap> pullFrom(String node) {
        io.vertx.core.Future<ClusterMap> answer;
        try {
            answer = membershipClient.map(node);
        } catch (RuntimeException e) { // a URL the client cannot even send to
            return io.vertx.core.Future.failedFuture(e);
        }
        return answer.onSuccess(map -> {
            divergence.check(map.epoch(), map.fingerprintText(), node);
            if (map.epoch() > epoch() && !worker.isShutdown()) {
                worker.execute(() -> {
                    try {
                        adopt(map);
                    } catch (IOException | RuntimeException e) {
                        LOG.error("cannot keep the cluster map of epoch {} pulled from {}", map.epoch(), node, e);
                    }
                });
            }
        });
    }

    /**
     * Starts, or joins if already running or done, this node's stream of {@code movement}. A stream that
     * failed is started again, resuming after its checkpoint.
     */
    CompletableFuture<Long> stream(KeyMovement movement) {
        return streams.compute(movement.streamName(), (name, running) -> {
            if (running != null && !running.isCompletedExceptionally()) {
                return running;
            }
            return CompletableFuture.supplyAsync(() -> {
                try {
                    BudgetLane lane = streamLane != null ? streamLane
                            : BackgroundBudget.fixed().lane(BackgroundWork.STREAM, config.streamBytesPerSecond());
                    KeyStreamer keys = new KeyStreamer(dao, movement, config.self(), this::sendBatch,
                            config.storeOptions().storage(), config.dataDirectory(), lane, config.streamBatchBytes());
                    streamers.put(name, keys);
                    long sent = keys.run();
                    LOG.info("node {} streamed {} entries for the change of epoch {} (stream {})", config.self(), sent,
                            movement.id(), name);
                    return sent;
                } catch (IOException e) {
                    LOG.warn("node {}: stream {} of change {} failed: {}", config.self(), name, movement.id(), e.getMessage());
                    throw new UncheckedIOException(e);
                }
            }, streamer);
        });
    }

    /** This node's stream named {@code name}, or null if it has none (never asked, or restarted since). */
    CompletableFuture<Long> streamOf(String name) {
        return streams.get(name);
    }

    /** The counts of this node's stream named {@code name} so far (zeros before it started), as running. */
    StreamProgress streamProgressOf(String name) {
        KeyStreamer keys = streamers.get(name);
        return keys == null ? StreamProgress.RUNNING : keys.progress();
    }

    private CompletableFuture<Void> sendBatch(String node, List<io.kvstore.core.Entry> entries) {
        return new HttpRepairPeer(client, node, STREAM_BATCH_TIMEOUT_MILLIS, config.network().maxKeyBytes()).ingest(entries)
                .toCompletableFuture();
    }

    private Topology build(ClusterMap map, List<Replica> replicas, FailureDetector detector) {
        ReplicationOptions options = replication.toBuilder().replicationFactor(map.replicationFactor()).build();
        List<String> owners = map.readOwners();
        HintedHandoff handoff = hints;
        ReplicaCoordinator coordinator = ReplicaCoordinator.builder(map.readPlacement(), replicas, clock)
                .timeout(config.network().replicaTimeout())
                .options(options)
                .failureDetector(detector)
                // By URL: the coordinator's indexes are of this map, hinted handoff may follow a newer one.
                .hintedHandoff(handoff == null ? null : (node, entry) -> handoff.hint(owners.get(node), entry))
                .staleWrites(this::writeAgain)
                .build();
        if (map.readOwners().size() > 1) {
            detector.start();
        }
        return new Topology(map, coordinator, detector, clock,
                map.inTransition() ? replicasOf(map, map.pendingOwners()) : List.of());
    }

    /**
     * A replica on the map of {@code epoch} refused the write of {@code entry} as sent on this node's older
     * map: once this node holds that map, writes it again to every replica and pending replica the map
     * names. The first write may have been acknowledged by replicas still on the older map; this one
     * reaches the refusing replica and the ones only the newer map names. Failures are hinted as usual.
     */
    private void writeAgain(Entry entry, long epoch) {
        reached(epoch).thenRun(() -> {
            Topology now = topology;
            now.write(entry, Quorum.of(1, now.replicationFactor(), now.clusterSize())).whenComplete((done, error) -> {
                if (error != null) {
                    LOG.debug("node {}: writing a refused version again on map epoch {} failed: {}", config.self(),
                            now.map().epoch(), error.getMessage());
                }
            });
        });
    }

    private FailureDetector detector(ClusterMap map, List<Replica> replicas) {
        return new FailureDetector(map.readOwners(), replicas, map.readOwners().indexOf(config.self()),
                PROBE_INTERVAL, System::currentTimeMillis);
    }

    /**
     * The replicas of {@code nodes} for the topology of {@code map}: each peer's requests carry that map's
     * epoch, whatever map this node holds when they leave, so that a replica on a newer map judges a
     * request by the map that chose its replicas.
     */
    private List<Replica> replicasOf(ClusterMap map, List<String> nodes) {
        List<Replica> replicas = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            replicas.add(node.equals(config.self()) ? local : peerWrapper.apply(node, new HttpReplica(replicaClient, node,
                    config.network().replicaTimeout().toMillis(), config.self(), map, this,
                    config.network().batchReplicaRequests() ? batches : null)));
        }
        return replicas;
    }

    /**
     * The hint store: the node's own engine in {@value #HINTS_DIRECTORY} under the data directory,
     * with its own clock lease (removals of hints must supersede them across restarts).
     */
    private HintedHandoff openHints(List<String> nodes, List<Replica> replicas, FailureDetector detector) throws IOException {
        Path directory = config.dataDirectory().resolve(HINTS_DIRECTORY);
        DaoOptions storeOptions = config.storeOptions();
        HybridClock hintClock = new HybridClock(System::currentTimeMillis, ClockLease.open(storeOptions.storage(), directory));
        Dao hintDao = Engine.LSM.open(DaoOptions.builder(directory)
                .storage(storeOptions.storage())
                .syncPolicy(storeOptions.syncPolicy())
                .flushThresholdBytes(Math.min(HINTS_FLUSH_THRESHOLD_BYTES, storeOptions.flushThresholdBytes()))
                .backgroundPriority(storeOptions.backgroundPriority())
                // Hints are read once, when replayed: caching their blocks would only hold heap.
                .blockCacheBytes(0)
                // A delivered hint's tombstone shadows only that hint, in this node's own store: nothing
                // replicates it, so it can go as soon as compaction may drop it, not days later.
                .tombstoneGrace(Duration.ZERO)
                .build());
        try {
            return new HintedHandoff(hintDao, hintClock, nodes, replicas, detector, replication, System::currentTimeMillis);
        } catch (IOException | RuntimeException e) {
            try {
                hintDao.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Stops pulling and streaming, closes the detectors and the hint store; call before the store closes. */
    @Override
    public void close() throws InterruptedException {
        if (pullTimer >= 0) {
            vertx.cancelTimer(pullTimer);
        }
        worker.shutdownNow();
        streamer.shutdownNow();
        worker.awaitTermination(10, TimeUnit.SECONDS);
        streamer.awaitTermination(10, TimeUnit.SECONDS);
        client.close();
        Topology last = topology;
        if (last != null) {
            last.coordinator().close();
            last.detector().close();
        }
        if (hints != null) {
            try {
                hints.close();
            } catch (IOException e) {
                LOG.warn("cannot close the hint store cleanly", e);
            }
        }
    }
}
