package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.internal.Scheduler;
import io.kvstore.cluster.internal.metadata.NoMajorityException;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.NodeUrl;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of membership: every change of the cluster map is made here, one at a time.
 *
 * <p>The claimant ({@link ClusterMap#claimant()}, the first node of the map that is not joining) drives
 * every change; other members forward change requests to it. Each map it makes is committed through the
 * {@link MapLog}, so two changes can never both make epoch E+1 and a driver cut off from the metadata
 * group's majority changes nothing. The removal of the claimant itself is driven by the next node in map
 * order; that node also drives on a change the claimant left in progress and stays silent about
 * ({@link #resume}). An operator can cancel a change before its last map ({@link #cancel}).
 *
 * <p>Every change is three committed maps: the one that starts it (writes reach the old and the new
 * replicas, reads the old), the one that moves reads to the new replicas once the streams are done
 * ({@link ClusterMap#readsMoved()}), and the one that ends it; then the owners clean up.
 *
 * <ul>
 *   <li>join: the node enters as {@code joining}; every owner streams it the keys it gains; then it is
 *       {@code normal}. If an owner stays unreachable or a stream keeps failing, the node leaves the
 *       map again and the change fails with the reason.</li>
 *   <li>decommission: the node is {@code leaving}; every owner streams the keys it loses to the nodes
 *       that gain them (under {@code modn} and {@code jump} the nodes that stay lose keys too); then
 *       it leaves the map. On failure it is {@code normal} again.</li>
 *   <li>remove: the dead node is {@code leaving}, so that reads stay on its old replicas while writes
 *       also reach the new ones; every surviving replica of its keys streams them to the nodes that
 *       gain them; then it leaves the map. On failure it is {@code normal} again.</li>
 * </ul>
 *
 * <p>Asynchronous and free of threads of its own: the other nodes answer through the
 * {@link MembershipTransport}, commits through the {@link MapLog}, waits and timeouts through the
 * {@link Scheduler}, so the same code runs over HTTP in the server and in virtual time in a simulation.
 */
public final class MapChanges {
    private static final Logger LOG = LoggerFactory.getLogger(MapChanges.class);
    /** The step of a change whose streams are done and whose reads moved to the new replicas. */
    static final String READS_MOVED = "reads moved";
    private static final long POLL_MILLIS = 200;
    /** A stream that failed this many times in a row fails the change. */
    private static final int STREAM_ATTEMPTS = 5;
    static final long REQUEST_TIMEOUT_MILLIS = 5_000;
    /** Changes kept for {@link #list}: the oldest beyond these are forgotten. */
    static final int CHANGES_KEPT = 100;
    /** Checks in a row in which the claimant's successor found a change in progress and the claimant silent, before it takes over. */
    static final int TAKEOVER_CHECKS = 3;
    /** How often a change past its streams is tried again to its end, or one another driver moves is looked at. */
    static final long RETRY_MILLIS = 2_000;
    /** How long a change another driver took over may stay at one epoch before this one lets it go. */
    static final long HANDOVER_SILENCE_MILLIS = 60_000;

    private final String self;
    private final MapLog log;
    private final MembershipTransport transport;
    private final Scheduler scheduler;
    /** The most nodes this driver hands a map to itself ({@link MapRelay}). */
    private volatile int relayFanOut = MapRelay.FAN_OUT;
    private final LongSupplier clockMillis;
    private final long unreachableMillis;
    private final AtomicInteger sequence = new AtomicInteger();
    private final long idBase;
    private final Map<Long, MapChange> changes = new ConcurrentHashMap<>();
    /** The change this node drives, or reserves while committing its first map; null when none. */
    private MapChange running;
    private int claimantSilentChecks;
    private boolean checkingClaimant;

    /**
     * @param unreachableMillis how long a node streaming keys may stay unreachable before the change fails
     */
    public MapChanges(String self, MapLog log, MembershipTransport transport, Scheduler scheduler, LongSupplier clockMillis,
                      long unreachableMillis) {
        this.self = self;
        this.log = log;
        this.transport = transport;
        this.scheduler = scheduler;
        this.clockMillis = clockMillis;
        this.unreachableMillis = unreachableMillis;
        // Ids stay unique across restarts of the node: a poller never mistakes a new change for an old one.
        this.idBase = clockMillis.getAsLong() * 1000;
    }

    /** The node a change of {@code operation} on {@code url} must be sent to. */
    public static String claimantFor(ClusterMap map, ChangeOperation operation, String url) {
        String claimant = map.claimant();
        if (operation == ChangeOperation.REMOVE && url.equals(claimant)) {
            return successor(map, url);
        }
        return claimant;
    }

    private static String successor(ClusterMap map, String url) {
        for (Member member : map.members()) {
            if (member.state() != NodeState.JOINING && !member.url().equals(url)) {
                return member.url();
            }
        }
        return url;
    }

    /** Change {@code id}, if this node drove it and still remembers it. */
    public Optional<MapChange> change(long id) {
        return Optional.ofNullable(changes.get(id));
    }

    /** The change this node drives now, if any. */
    public synchronized Optional<MapChange> running() {
        return Optional.ofNullable(running);
    }

    /** The changes this node drove since it started, newest first, at most {@value #CHANGES_KEPT}. */
    public List<MapChange> list() {
        List<MapChange> all = new ArrayList<>(changes.values());
        all.sort(Comparator.comparingLong(MapChange::id).reversed());
        return all;
    }

    /**
     * Cancels change {@code id} if it has not reached its last step: it stops waiting for its streams and
     * rolls back to the map before it, where every key still has its replicas.
     *
     * @throws ChangeRefusedException 404 for a change this node does not drive, 409 for one that is over
     *                                or already committing its last map
     */
    public MapChange cancel(long id) {
        MapChange change = changes.get(id);
        if (change == null) {
            throw new ChangeRefusedException(404, "no change " + id + " driven by " + self);
        }
        if (!MapChange.RUNNING.equals(change.status())) {
            throw new ChangeRefusedException(409, "the " + change + " is over: " + change.status());
        }
        if (change.pastCancelling()) {
            throw new ChangeRefusedException(409, "the " + change + " is committing its last map; too late to cancel");
        }
        change.cancel();
        LOG.info("node {}: an operator cancels the {}", self, change);
        return change;
    }

    /**
     * Drives on a change left in progress in the map: by the claimant (it restarted mid-change), or by
     * its successor once the claimant stayed silent through {@value #TAKEOVER_CHECKS} checks in a row.
     * Call periodically; the epoch log keeps two drivers from committing different maps.
     */
    public void resume() {
        ClusterMap map;
        synchronized (this) {
            map = log.map();
            if (!map.inTransition() || running != null || checkingClaimant) {
                claimantSilentChecks = 0;
                return;
            }
            if (self.equals(map.claimant())) {
                resumeInProgress(map);
                return;
            }
            if (!self.equals(successor(map, map.claimant()))) {
                claimantSilentChecks = 0;
                return;
            }
            checkingClaimant = true;
        }
        answers(map.claimant()).whenComplete((alive, error) -> {
            synchronized (this) {
                checkingClaimant = false;
                if (Boolean.TRUE.equals(alive) || log.map().epoch() != map.epoch() || running != null) {
                    claimantSilentChecks = 0;
                    return;
                }
                if (++claimantSilentChecks < TAKEOVER_CHECKS) {
                    return;
                }
                LOG.info("node {} takes over the change in progress at epoch {}: the claimant {} has not answered {} checks",
                        self, map.epoch(), map.claimant(), claimantSilentChecks);
                claimantSilentChecks = 0;
                resumeInProgress(map);
            }
        });
    }

    private void resumeInProgress(ClusterMap map) {
        for (Member member : map.members()) {
            if (member.state() != NodeState.NORMAL) {
                MapChange change = newChange(member.state() == NodeState.JOINING ? ChangeOperation.JOIN
                        : ChangeOperation.DECOMMISSION, member.url(), true, false);
                LOG.info("node {} resumes the {} left in progress at epoch {}", self, change, map.epoch());
                begin(change, map, map);
                return;
            }
        }
    }

    /**
     * Validates a change against this node's map, commits the map of the next epoch and drives the change
     * on in the background. Completes with the change once its first map is committed.
     *
     * @param force a removal whose maps are committed without a majority of the metadata group: for a
     *              group that lost its majority for good (a 2-node cluster whose peer died), never else
     * @return fails with {@link ChangeRefusedException} with the status to answer: 409 when this node
     *         is not the claimant, another change is under way or the change would break the map (the
     *         message holds the current map), 404 for an unknown node, 400 for a bad URL or a forced
     *         change other than a removal, 503 when no majority of the metadata group answers
     */
    public CompletionStage<MapChange> start(ChangeOperation operation, String url, boolean force) {
        ClusterMap map;
        ClusterMap next;
        MapChange change;
        try {
            synchronized (this) {
                map = log.map();
                String claimant = claimantFor(map, operation, url);
                if (!self.equals(claimant)) {
                    throw new ChangeRefusedException(409, "this node is not the claimant of map epoch " + map.epoch()
                            + "; the claimant is " + claimant);
                }
                if (running != null) {
                    throw new ChangeRefusedException(409, "the " + running + " is in progress; one change at a time; map: " + map);
                }
                if (map.inTransition()) {
                    throw new ChangeRefusedException(409, "a change is in progress; one change at a time; map: " + map);
                }
                if (force && operation != ChangeOperation.REMOVE) {
                    throw new ChangeRefusedException(400, "only a removal can be forced, not a " + operation.id());
                }
                next = next(map, operation, url);
                change = newChange(operation, url, false, force);
                running = change;
            }
        } catch (ChangeRefusedException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletionStage<Void> checked = operation == ChangeOperation.REMOVE
                ? answers(url).thenAccept(alive -> {
                    if (alive) {
                        throw new ChangeRefusedException(409, "node " + url + " answers: decommission it instead of removing it");
                    }
                })
                : CompletableFuture.completedFuture(null);
        return checked.thenCompose(ok -> log.commit(map.epoch(), next, force)).handle((committed, error) -> {
            if (error == null && committed) {
                LOG.info("node {} starts the {} at epoch {}", self, change, next.epoch());
                begin(change, map, next);
                return change;
            }
            synchronized (this) {
                running = null;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof ChangeRefusedException refused) {
                throw refused;
            }
            if (error == null) {
                throw new ChangeRefusedException(409, "the map moved past epoch " + map.epoch() + " meanwhile; map: " + log.map());
            }
            if (cause instanceof NoMajorityException none) {
                throw new ChangeRefusedException(503, "cannot commit the map of epoch " + next.epoch() + ": " + none.getMessage()
                        + (none.outcomeUnknown() ? "; some members may hold the map, so the change may still be made once a"
                        + " majority answers (GET /v0/cluster tells)" : "")
                        + (operation == ChangeOperation.REMOVE ? "; if the group lost its majority for good, force=true removes"
                        + " the node without it (unsafe: a partitioned majority could commit another map)" : ""));
            }
            throw new ChangeRefusedException(500, "cannot keep the map of epoch " + next.epoch() + ": " + cause);
        });
    }

    private ClusterMap next(ClusterMap map, ChangeOperation operation, String url) {
        switch (operation) {
            case JOIN:
                try {
                    NodeUrl.parse(url, NodeUrl.parse(self).scheme());
                } catch (IllegalArgumentException e) {
                    throw new ChangeRefusedException(400, "cannot join: " + e.getMessage());
                }
                if (map.contains(url)) {
                    throw new ChangeRefusedException(409, "node " + url + " is already in the cluster map as "
                            + map.state(url).id() + "; map: " + map);
                }
                return map.withJoining(url);
            case DECOMMISSION:
                requireRemovable(map, url, "decommission");
                return map.withState(url, NodeState.LEAVING);
            default:
                if (url.equals(self)) {
                    throw new ChangeRefusedException(409, "a node cannot remove itself: decommission " + url + " instead");
                }
                requireRemovable(map, url, "remove");
                // Leaving first, out of the map once its keys are streamed: until then reads stay on the
                // old replicas, never on one that gains the dead node's keys and does not hold them yet.
                return map.withState(url, NodeState.LEAVING);
        }
    }

    private static void requireRemovable(ClusterMap map, String url, String verb) {
        if (!map.contains(url)) {
            throw new ChangeRefusedException(404, "node " + url + " is not in the cluster map; map: " + map);
        }
        try {
            map.without(url);
        } catch (IllegalArgumentException e) {
            throw new ChangeRefusedException(409, "cannot " + verb + " " + url + ": without it, " + e.getMessage() + "; map: " + map);
        }
    }

    private MapChange newChange(ChangeOperation operation, String node, boolean resumed, boolean force) {
        return new MapChange(idBase + sequence.incrementAndGet(), operation, node, resumed, force, clockMillis.getAsLong());
    }

    private synchronized void begin(MapChange change, ClusterMap before, ClusterMap next) {
        running = change;
        changes.put(change.id(), change);
        while (changes.size() > CHANGES_KEPT) {
            changes.remove(Collections.min(changes.keySet()));
        }
        scheduler.schedule(0, () -> drive(change, before, next));
    }

    private void drive(MapChange change, ClusterMap before, ClusterMap next) {
        String node = change.node();
        CompletionStage<Void> done = push(next, before.urls()).thenCompose(pushed -> {
            if (next.readsMoved()) {
                return CompletableFuture.completedFuture(null); // resumed past its streams
            }
            CompletionStage<Void> streamed = switch (change.operation()) {
                case JOIN -> streams(change, KeyMovement.join(next.epoch(), next, node));
                case DECOMMISSION -> (change.resumed() ? answers(node) : CompletableFuture.completedFuture(true))
                        .thenCompose(alive -> alive ? streams(change, KeyMovement.decommission(next.epoch(), next, node))
                                : takeOverFromTheSurvivors(change));
                case REMOVE -> streams(change, KeyMovement.removal(next.epoch(), next, next.without(node)));
            };
            // Reads move to the new replicas in a map of their own, while writes still reach both sides:
            // a coordinator one map behind then reads from replicas every newer write reaches.
            return streamed.thenCompose(ok -> finish(change, READS_MOVED, ClusterMap::withReadsMoved));
        }).thenCompose(readsMoved -> finish(change, "finishing", end(change)));
        done.thenRun(() -> complete(change)).exceptionally(error -> {
            rollBack(change, unwrap(error));
            return null;
        });
    }

    /** The step that ends the change: the newcomer {@code normal}, or the node out of the map. */
    private static UnaryOperator<ClusterMap> end(MapChange change) {
        return change.operation() == ChangeOperation.JOIN
                ? map -> map.withState(change.node(), NodeState.NORMAL) : map -> map.without(change.node());
    }

    private void complete(MapChange change) {
        change.step("cleanup");
        requestCleanups();
        change.end(MapChange.DONE, clockMillis.getAsLong());
        LOG.info("node {}: the {} is done", self, change);
        release(change);
    }

    /**
     * A decommission found in progress whose node does not answer (left leaving by a removal, or a
     * decommissioned node that died since): only the surviving replicas can hand its keys on. A fresh
     * epoch names the streams, so that no stream of the change taken over (a decommission's streams
     * send less) passes for one of them, checkpoints included.
     */
    private CompletionStage<Void> takeOverFromTheSurvivors(MapChange change) {
        LOG.info("node {}: {} does not answer; its keys come from the surviving replicas", self, change.node());
        return finish(change, "streaming", map -> map.withState(change.node(), NodeState.LEAVING)).thenCompose(renamed -> {
            ClusterMap taken = log.map();
            return streams(change, KeyMovement.removal(taken.epoch(), taken, taken.without(change.node())));
        });
    }

    private void rollBack(MapChange change, Throwable error) {
        boolean cancelled = change.cancelled() && !change.pastCancelling();
        change.reason(String.valueOf(error.getMessage()));
        LOG.warn("node {}: the {} {}: {}", self, change, cancelled ? "was cancelled" : "failed", error.getMessage());
        change.step("rolling back");
        ClusterMap now = log.map();
        if (!inProgress(change, now) || now.readsMoved()) {
            // Another driver moved the map on (it finishes or undoes the change), or the change is past its
            // streams with reads on the new replicas: it is followed to its end, never undone from here.
            followToTheEnd(change, now.epoch(), clockMillis.getAsLong());
            return;
        }
        UnaryOperator<ClusterMap> undo = change.operation() == ChangeOperation.JOIN
                ? map -> map.without(change.node()) : map -> map.withState(change.node(), NodeState.NORMAL);
        finish(change, "rolling back", undo)
                // Streams that ran before the rollback left copies on nodes that do not own them.
                .thenRun(this::requestCleanups)
                .exceptionally(failure -> {
                    change.reason(change.reason() + "; and the map could not be rolled back: " + unwrap(failure).getMessage());
                    LOG.error("node {}: cannot roll back the {}", self, change, unwrap(failure));
                    return null;
                })
                .whenComplete((ok, ignored) -> {
                    change.end(cancelled ? MapChange.CANCELLED : MapChange.FAILED, clockMillis.getAsLong());
                    release(change);
                });
    }

    /** Whether {@code map} still shows the change under way: its node {@code joining} or {@code leaving}. */
    private static boolean inProgress(MapChange change, ClusterMap map) {
        NodeState during = change.operation() == ChangeOperation.JOIN ? NodeState.JOINING : NodeState.LEAVING;
        return map.inTransition() && map.contains(change.node()) && map.state(change.node()) == during;
    }

    /**
     * Follows a change this driver no longer moves on its own to its end: once the map shows it over, the
     * change is done or failed as the map says; while its reads are moved, this driver tries to finish it
     * every {@value #RETRY_MILLIS} ms (the group may lack a majority for a while); while another driver
     * moves it, this one waits, and gives up (releasing the change to the periodic resume) if the map
     * stays at one epoch for {@value #HANDOVER_SILENCE_MILLIS} ms.
     */
    private void followToTheEnd(MapChange change, long lastEpoch, long lastMoveMillis) {
        ClusterMap now = log.map();
        long nowMillis = clockMillis.getAsLong();
        if (!inProgress(change, now)) {
            boolean done = change.operation() == ChangeOperation.JOIN
                    ? now.contains(change.node()) && now.state(change.node()) == NodeState.NORMAL : !now.contains(change.node());
            if (done) {
                LOG.info("node {}: the {} ended at epoch {}, finished by another node", self, change, now.epoch());
                change.reason(null);
                change.end(MapChange.DONE, nowMillis);
            } else {
                change.reason(change.reason() + "; another node undid it (epoch " + now.epoch() + ")");
                change.end(MapChange.FAILED, nowMillis);
            }
            release(change);
            return;
        }
        long moved = now.epoch() != lastEpoch ? nowMillis : lastMoveMillis;
        if (now.readsMoved()) {
            finish(change, "finishing", end(change)).whenComplete((ok, error) -> {
                if (error == null) {
                    complete(change);
                } else {
                    change.reason(String.valueOf(unwrap(error).getMessage()) + "; it is past its streams, so it is"
                            + " finished, not rolled back, once the metadata group answers");
                    scheduler.schedule(RETRY_MILLIS, () -> followToTheEnd(change, now.epoch(), moved));
                }
            });
            return;
        }
        if (nowMillis - moved > HANDOVER_SILENCE_MILLIS) {
            change.reason(change.reason() + "; handed over to another driver, which stopped at epoch " + now.epoch()
                    + ": the periodic resume drives it on");
            change.end(MapChange.FAILED, nowMillis);
            release(change);
            return;
        }
        change.step("handed over");
        scheduler.schedule(RETRY_MILLIS, () -> followToTheEnd(change, now.epoch(), moved));
    }

    private synchronized void release(MapChange change) {
        if (running == change) {
            running = null;
        }
    }

    /**
     * The change completed and every node that gained keys holds them: asks every owner of the settled
     * map to drop the keys it no longer owns. A node that misses the request keeps them until an
     * operator runs the cleanup there ({@code POST /v0/admin/cleanup}).
     */
    private void requestCleanups() {
        ClusterMap settled = log.map();
        for (String owner : settled.owners()) {
            transport.cleanup(owner, settled.epoch()).whenComplete((ok, error) -> {
                if (error != null) {
                    LOG.warn("node {}: cannot ask {} to clean up at epoch {} (an operator can run it there): {}",
                            self, owner, settled.epoch(), unwrap(error).getMessage());
                }
            });
        }
    }

    /**
     * Makes the next map from the current one by {@code step} (the step that ends the change, or one on
     * the way), commits it and pushes it to every node.
     */
    private CompletionStage<Void> finish(MapChange change, String stepName, UnaryOperator<ClusterMap> step) {
        change.step(stepName);
        ClusterMap current = log.map();
        ClusterMap last;
        try {
            last = step.apply(current);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return log.commit(current.epoch(), last, change.force()).thenCompose(committed -> {
            if (!committed) {
                throw new CompletionException(new IOException("the map moved past epoch " + current.epoch() + " during the change"));
            }
            return push(last, current.urls());
        });
    }

    /** Hands maps to at most {@code fanOut} nodes itself (a simulation of few nodes has them handed on too). */
    void relayFanOut(int fanOut) {
        relayFanOut = fanOut;
    }

    /**
     * Hands {@code map} to every node of it ({@link MapRelay}) and of {@code others} (directly: nodes it no
     * longer lists); a node that misses it pulls it later. Nodes a relaying node left unknown (it did not
     * answer) are sent the map directly.
     */
    private CompletionStage<Void> push(ClusterMap map, List<String> others) {
        List<String> members = new ArrayList<>(map.urls());
        members.remove(self);
        List<CompletableFuture<Void>> pushes = new ArrayList<>();
        for (String node : others) {
            if (!map.contains(node) && !node.equals(self)) {
                pushes.add(pushDirectly(map, node));
            }
        }
        pushes.add(MapRelay.handOn(map, members, REQUEST_TIMEOUT_MILLIS, relayFanOut, transport, scheduler).thenCompose(outcome -> {
            for (String node : outcome.failed()) {
                LOG.warn("cannot push the map of epoch {} to {} (it will pull it)", map.epoch(), node);
            }
            List<CompletableFuture<Void>> again = new ArrayList<>();
            for (String node : outcome.unknown()) {
                again.add(pushDirectly(map, node));
            }
            return CompletableFuture.allOf(again.toArray(CompletableFuture[]::new));
        }).toCompletableFuture());
        return CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new));
    }

    /** Hands {@code map} to {@code node} alone; a failure is logged (the node pulls the map later). */
    private CompletableFuture<Void> pushDirectly(ClusterMap map, String node) {
        return within(transport.push(node, map, List.of(), 0), "the push of epoch " + map.epoch() + " to " + node)
                .handle((ignored, error) -> {
                    if (error != null) {
                        LOG.warn("cannot push the map of epoch {} to {} (it will pull it): {}", map.epoch(), node,
                                unwrap(error).getMessage());
                    }
                    return null;
                });
    }

    /**
     * Has every one of the movement's senders stream its share; completes once all are done, or fails
     * with the first that fails (the others stop polling then).
     */
    private CompletionStage<Void> streams(MapChange change, KeyMovement movement) {
        change.step("streaming");
        List<String> senders = movement.senders();
        change.addStreams(senders.size());
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger left = new AtomicInteger(senders.size());
        if (senders.isEmpty()) {
            all.complete(null);
        }
        for (String source : senders) {
            new SourceStream(change, source, movement, all, left).poll();
        }
        return all;
    }

    /**
     * One source's stream of a movement, started and polled to its end. A stream that fails is started
     * again (it resumes after its checkpoint), at most {@value #STREAM_ATTEMPTS} times in a row; a source
     * that does not answer for {@code unreachableMillis} fails the change, which rolls back, as Cassandra's
     * consistent range movement does: another holder's copy may lack writes only that source held.
     */
    private final class SourceStream {
        private final MapChange change;
        private final String source;
        private final KeyMovement movement;
        private final CompletableFuture<Void> all;
        private final AtomicInteger left;
        private boolean started;
        private int failures;
        private long lastAnswerMillis = clockMillis.getAsLong();
        private String lastProblem = "no answer";

        SourceStream(MapChange change, String source, KeyMovement movement, CompletableFuture<Void> all, AtomicInteger left) {
            this.change = change;
            this.source = source;
            this.movement = movement;
            this.all = all;
            this.left = left;
        }

        void poll() {
            if (all.isDone()) {
                return;
            }
            if (change.cancelled()) {
                all.completeExceptionally(new IOException("cancelled by an operator"));
                return;
            }
            CompletionStage<Void> start = started ? CompletableFuture.completedFuture(null)
                    : within(transport.startStream(source, movement), "starting the stream from " + source)
                            .thenRun(() -> started = true);
            start.thenCompose(ok -> within(transport.streamProgress(source, movement), "the stream from " + source))
                    .whenComplete((progress, error) -> {
                        if (error != null) {
                            lastProblem = unwrap(error).getMessage();
                            if (clockMillis.getAsLong() - lastAnswerMillis > unreachableMillis) {
                                // No failover to another holder (KeyMovement.withoutSources): its copy may lack
                                // writes the silent source held, and the change would end below a quorum.
                                all.completeExceptionally(new IOException("source " + source + " unreachable for "
                                        + unreachableMillis + " ms: " + lastProblem));
                                return;
                            }
                            scheduler.schedule(POLL_MILLIS, this::poll);
                            return;
                        }
                        lastAnswerMillis = clockMillis.getAsLong();
                        change.streamProgress(source, movement.streamName(), progress);
                        switch (progress.state()) {
                            case UNKNOWN -> {
                                started = false;
                                scheduler.schedule(0, this::poll);
                            }
                            case DONE -> done();
                            case FAILED -> {
                                lastProblem = progress.reason();
                                started = false;
                                if (++failures >= STREAM_ATTEMPTS) {
                                    all.completeExceptionally(new IOException("the stream from " + source + " failed "
                                            + failures + " times; last: " + lastProblem));
                                    return;
                                }
                                scheduler.schedule(POLL_MILLIS, this::poll);
                            }
                            default -> scheduler.schedule(POLL_MILLIS, this::poll);
                        }
                    });
        }

        private void done() {
            change.streamDone();
            if (left.decrementAndGet() == 0) {
                all.complete(null);
            }
        }
    }

    private CompletionStage<Boolean> answers(String node) {
        return within(transport.answers(node), "the ping of " + node).handle((alive, error) -> error == null && alive);
    }

    /** {@code stage}, or a failure naming {@code what} if it has not ended within {@value #REQUEST_TIMEOUT_MILLIS} ms. */
    private <T> CompletableFuture<T> within(CompletionStage<T> stage, String what) {
        CompletableFuture<T> bounded = new CompletableFuture<>();
        scheduler.schedule(REQUEST_TIMEOUT_MILLIS, () -> bounded.completeExceptionally(
                new IOException(what + ": no answer within " + REQUEST_TIMEOUT_MILLIS + " ms")));
        stage.whenComplete((value, error) -> {
            if (error != null) {
                bounded.completeExceptionally(unwrap(error));
            } else {
                bounded.complete(value);
            }
        });
        return bounded;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
