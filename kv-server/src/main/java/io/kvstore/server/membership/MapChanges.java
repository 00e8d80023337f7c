package io.kvstore.server.membership;

import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.server.internode.MembershipClient;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claimant's side of membership: every change of the cluster map is made here, one at a time.
 *
 * <p>The claimant ({@link ClusterMap#claimant()}, the first node of the map that is not joining) drives
 * every change; other members forward change requests to it, and refuse them (503) while it is
 * unreachable. Each map it makes is committed through the epoch log ({@link Membership#commit}), so
 * two changes can never both make epoch E+1 and a claimant cut off from the metadata group's majority
 * changes nothing. The removal of the claimant itself once it is dead is driven by the next node in map
 * order, after checking that the claimant does not answer; that node also drives on a change the
 * claimant left in progress and stays silent about ({@link #resume}). An operator can cancel a change
 * before its last map ({@link #cancel}).
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
 */
public final class MapChanges {
    private static final Logger LOG = LoggerFactory.getLogger(MapChanges.class);
    public static final String JOIN = "join";
    static final String DECOMMISSION = "decommission";
    static final String REMOVE = "remove";
    private static final long POLL_MILLIS = 200;
    /** A stream that failed this many times in a row fails the change. */
    private static final int STREAM_ATTEMPTS = 5;
    private static final long PUSH_TIMEOUT_MILLIS = 5_000;
    /** Changes kept for {@link #list}: the oldest beyond these are forgotten. */
    static final int CHANGES_KEPT = 100;

    /** One change and how it went. */
    static final class Change {
        final long id;
        final String operation;
        final String node;
        /** Found in progress in the map by a claimant that restarted, rather than started here. */
        final boolean resumed;
        /** A removal an operator forced: its maps are committed without a majority of the metadata group. */
        final boolean force;
        final long startedAtMillis = System.currentTimeMillis();
        volatile String status = "running";
        /** Where a running change is: {@code started}, {@code streaming}, {@code finishing} or {@code cleanup}. */
        volatile String step = "started";
        volatile String reason;
        volatile long finishedAtMillis;
        /** Senders asked to stream, and how many of them are done. */
        volatile int streams;
        final AtomicInteger streamsDone = new AtomicInteger();
        /** Entries the finished streams sent. */
        final AtomicLong entriesStreamed = new AtomicLong();
        /** Set by an operator's cancel: the change stops waiting for its streams and rolls back. */
        volatile boolean cancelled;

        Change(long id, String operation, String node, boolean resumed, boolean force) {
            this.id = id;
            this.operation = operation;
            this.node = node;
            this.resumed = resumed;
            this.force = force;
        }

        JsonObject toJson(ClusterMap map) {
            JsonObject json = new JsonObject().put("id", id).put("operation", operation).put("node", node)
                    .put("status", status).put("step", step).put("epoch", map.epoch()).put("resumed", resumed).put("force", force)
                    .put("startedAt", Instant.ofEpochMilli(startedAtMillis).toString())
                    .put("streams", streams).put("streamsDone", streamsDone.get())
                    .put("entriesStreamed", entriesStreamed.get());
            if (finishedAtMillis != 0) {
                json.put("finishedAt", Instant.ofEpochMilli(finishedAtMillis).toString());
            }
            if (reason != null) {
                json.put("reason", reason);
            }
            return json;
        }

        void end(String outcome) {
            finishedAtMillis = System.currentTimeMillis();
            step = outcome;
            status = outcome;
        }

        @Override
        public String toString() {
            return operation + " of " + node;
        }
    }

    private final Membership membership;
    private final NodeCleanup cleanup;
    private final long unreachableMillis;
    private final AtomicLong ids = new AtomicLong(System.currentTimeMillis());
    private final Map<Long, Change> changes = new ConcurrentHashMap<>();
    private Change running;
    /** Checks in a row in which this node, the claimant's successor, found a change in progress and the claimant silent. */
    private int claimantSilentChecks;
    /** How many such checks before the successor drives the change on itself. */
    static final int TAKEOVER_CHECKS = 3;

    /**
     * @param cleanup           this node's cleanup, asked for (as every owner's) when a change completed
     * @param unreachableMillis how long a node streaming keys may stay unreachable before the change fails
     */
    public MapChanges(Membership membership, NodeCleanup cleanup, long unreachableMillis) {
        this.membership = membership;
        this.cleanup = cleanup;
        this.unreachableMillis = unreachableMillis;
    }

    /** The node a change of {@code operation} on {@code url} must be sent to. */
    static String claimantFor(ClusterMap map, String operation, String url) {
        String claimant = map.claimant();
        if (REMOVE.equals(operation) && url.equals(claimant)) {
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

    Change change(long id) {
        return changes.get(id);
    }

    /** The change this node drives now, if any. */
    synchronized java.util.Optional<Change> running() {
        return java.util.Optional.ofNullable(running);
    }

    /** The changes this node drove as claimant since it started, newest first, at most {@value #CHANGES_KEPT}. */
    JsonArray list() {
        ClusterMap map = membership.map();
        List<Change> all = new ArrayList<>(changes.values());
        all.sort(Comparator.comparingLong((Change change) -> change.id).reversed());
        JsonArray list = new JsonArray();
        for (Change change : all) {
            list.add(change.toJson(map));
        }
        return list;
    }

    /**
     * Cancels change {@code id} if it has not reached its last step: it stops waiting for its streams and
     * rolls back to the map before it, where every key still has its replicas.
     *
     * @throws ChangeRefusedException 404 for a change this node does not drive, 409 for one that is over
     *                                or already committing its last map
     */
    Change cancel(long id) {
        Change change = changes.get(id);
        if (change == null) {
            throw new ChangeRefusedException(404, "no change " + id + " driven by " + membership.self());
        }
        if (!"running".equals(change.status)) {
            throw new ChangeRefusedException(409, "the " + change + " is over: " + change.status);
        }
        if ("finishing".equals(change.step) || "cleanup".equals(change.step)) {
            throw new ChangeRefusedException(409, "the " + change + " is committing its last map; too late to cancel");
        }
        change.cancelled = true;
        LOG.info("claimant {}: an operator cancels the {}", membership.self(), change);
        return change;
    }

    /** If this node is the claimant of a map left in transition (it restarted mid-change), drives it on. */
    public synchronized void resume() {
        ClusterMap map = membership.map();
        if (!map.inTransition() || running != null) {
            claimantSilentChecks = 0;
            return;
        }
        if (!membership.self().equals(map.claimant())) {
            // The claimant's successor takes a change over once the claimant stayed silent through a few
            // checks: the epoch log keeps two drivers from committing different maps, and their streams are one.
            if (!membership.self().equals(successor(map, map.claimant())) || answers(map.claimant())) {
                claimantSilentChecks = 0;
                return;
            }
            if (++claimantSilentChecks < TAKEOVER_CHECKS) {
                return;
            }
            LOG.info("node {} takes over the change in progress at epoch {}: the claimant {} has not answered {} checks",
                    membership.self(), map.epoch(), map.claimant(), claimantSilentChecks);
        }
        for (Member member : map.members()) {
            if (member.state() != NodeState.NORMAL) {
                Change change = new Change(ids.incrementAndGet(), member.state() == NodeState.JOINING ? JOIN : DECOMMISSION,
                        member.url(), true, false);
                LOG.info("claimant {} resumes the {} left in progress at epoch {}", membership.self(), change, map.epoch());
                begin(change, map, map);
                return;
            }
        }
    }

    /**
     * Validates a change against this node's map, makes the map of the next epoch and starts driving the
     * change in the background. Blocking (a ping, a file sync): call on a worker thread.
     *
     * @param force a removal whose maps are committed without a majority of the metadata group: for a
     *              group that lost its majority for good (a 2-node cluster whose peer died), never else
     * @throws ChangeRefusedException with the status to answer: 409 when this node is not the claimant,
     *                                another change is under way or the change would break the map
     *                                (the message holds the current map), 404 for an unknown node, 400
     *                                for an unknown operation or a forced change other than a removal,
     *                                503 when no majority of the metadata group answers
     */
    synchronized Change start(String operation, String url, boolean force) {
        ClusterMap map = membership.map();
        String self = membership.self();
        if (!self.equals(claimantFor(map, operation, url))) {
            throw new ChangeRefusedException(409, "this node is not the claimant of map epoch " + map.epoch()
                    + "; the claimant is " + claimantFor(map, operation, url));
        }
        if (running != null) {
            throw new ChangeRefusedException(409, "the " + running + " is in progress; one change at a time; map: " + map);
        }
        if (map.inTransition()) {
            throw new ChangeRefusedException(409, "a change is in progress; one change at a time; map: " + map);
        }
        if (force && !REMOVE.equals(operation)) {
            throw new ChangeRefusedException(400, "only a removal can be forced, not a " + operation);
        }
        ClusterMap next = next(map, operation, url, self);
        try {
            if (!commit(force, map.epoch(), next)) {
                throw new ChangeRefusedException(409, "the map moved past epoch " + map.epoch() + " meanwhile; map: "
                        + membership.map());
            }
        } catch (NoMajorityException e) {
            throw new ChangeRefusedException(503, "cannot commit the map of epoch " + next.epoch() + ": " + e.getMessage()
                    + (e.outcomeUnknown() ? "; some members may hold the map, so the change may still be made once a"
                    + " majority answers (GET /v0/cluster tells)" : "")
                    + (REMOVE.equals(operation) ? "; if the group lost its majority for good, force=true removes the node"
                    + " without it (unsafe: a partitioned majority could commit another map)" : ""));
        } catch (IOException e) {
            throw new ChangeRefusedException(500, "cannot keep the map of epoch " + next.epoch() + ": " + e);
        }
        Change change = new Change(ids.incrementAndGet(), operation, url, false, force);
        LOG.info("claimant {} starts the {} at epoch {}", self, change, next.epoch());
        begin(change, map, next);
        return change;
    }

    private ClusterMap next(ClusterMap map, String operation, String url, String self) {
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
                requireMember(map, url);
                try {
                    map.without(url);
                } catch (IllegalArgumentException e) {
                    throw new ChangeRefusedException(409, "cannot decommission " + url + ": without it, " + e.getMessage()
                            + "; map: " + map);
                }
                return map.withState(url, NodeState.LEAVING);
            case REMOVE:
                requireMember(map, url);
                if (url.equals(self)) {
                    throw new ChangeRefusedException(409, "a node cannot remove itself: decommission " + url + " instead");
                }
                try {
                    map.without(url);
                } catch (IllegalArgumentException e) {
                    throw new ChangeRefusedException(409, "cannot remove " + url + ": without it, " + e.getMessage()
                            + "; map: " + map);
                }
                if (answers(url)) {
                    throw new ChangeRefusedException(409, "node " + url + " answers: decommission it instead of removing it");
                }
                // Leaving first, out of the map once its keys are streamed: until then reads stay on the
                // old replicas, never on one that gains the dead node's keys and does not hold them yet.
                return map.withState(url, NodeState.LEAVING);
            default:
                throw new ChangeRefusedException(400, "unknown operation '" + operation + "'; expected join, decommission or remove");
        }
    }

    private static void requireMember(ClusterMap map, String url) {
        if (!map.contains(url)) {
            throw new ChangeRefusedException(404, "node " + url + " is not in the cluster map; map: " + map);
        }
    }

    private boolean answers(String url) {
        try {
            await(membership.client().map(url), PUSH_TIMEOUT_MILLIS);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void begin(Change change, ClusterMap before, ClusterMap next) {
        running = change;
        changes.put(change.id, change);
        while (changes.size() > CHANGES_KEPT) {
            changes.remove(Collections.min(changes.keySet()));
        }
        membership.worker().execute(() -> drive(change, before, next));
    }

    private void drive(Change change, ClusterMap before, ClusterMap next) {
        String node = change.node;
        try {
            push(next, before.urls());
            switch (change.operation) {
                case JOIN:
                    streams(change, KeyMovement.join(next.epoch(), next, node));
                    change.step = "finishing";
                    finish(change, map -> map.withState(node, NodeState.NORMAL));
                    break;
                case DECOMMISSION:
                    if (change.resumed && !answers(node)) {
                        // Left leaving by a removal, or by a decommission whose node died since: only the
                        // surviving replicas can hand its keys on.
                        LOG.info("claimant {}: {} does not answer; its keys come from the surviving replicas",
                                membership.self(), node);
                        // A fresh epoch names the streams, so that none of the change this one takes over
                        // (a decommission's streams send less) passes for one of them, checkpoints included.
                        finish(change, map -> map.withState(node, NodeState.LEAVING));
                        ClusterMap taken = membership.map();
                        streams(change, KeyMovement.removal(taken.epoch(), taken, taken.without(node)));
                    } else {
                        streams(change, KeyMovement.decommission(next.epoch(), next, node));
                    }
                    change.step = "finishing";
                    finish(change, map -> map.without(node));
                    break;
                default:
                    streams(change, KeyMovement.removal(next.epoch(), next, next.without(node)));
                    change.step = "finishing";
                    finish(change, map -> map.without(node));
                    break;
            }
            change.step = "cleanup";
            requestCleanups();
            change.end("done");
            LOG.info("claimant {}: the {} is done", membership.self(), change);
        } catch (Exception e) {
            boolean cancelled = change.cancelled && !"finishing".equals(change.step) && !"cleanup".equals(change.step);
            change.reason = e.getMessage();
            LOG.warn("claimant {}: the {} {}: {}", membership.self(), change, cancelled ? "was cancelled" : "failed", e.getMessage());
            change.step = "rolling back";
            NodeState during = JOIN.equals(change.operation) ? NodeState.JOINING : NodeState.LEAVING;
            ClusterMap now = membership.map();
            if (!now.contains(node) || now.state(node) != during) {
                // Another driver moved the map on (it finished or rolled back the change): nothing to undo.
                change.reason += "; the map moved on meanwhile (epoch " + now.epoch() + "), so nothing was rolled back";
            } else {
                try {
                    if (JOIN.equals(change.operation)) {
                        finish(change, map -> map.without(node));
                    } else {
                        finish(change, map -> map.withState(node, NodeState.NORMAL));
                    }
                    // Streams that ran before the rollback left copies on nodes that do not own them.
                    requestCleanups();
                } catch (Exception rollback) {
                    change.reason += "; and the map could not be rolled back: " + rollback.getMessage();
                    LOG.error("claimant {}: cannot roll back the {}", membership.self(), change, rollback);
                }
            }
            change.end(cancelled ? "cancelled" : "failed");
        } finally {
            synchronized (this) {
                running = null;
            }
        }
    }

    /**
     * The change completed and every node that gained keys holds them: asks every owner of the settled
     * map to drop the keys it no longer owns. A node that misses the request keeps them until an
     * operator runs the cleanup there ({@code POST /v0/admin/cleanup}).
     */
    private void requestCleanups() {
        ClusterMap settled = membership.map();
        for (String owner : settled.owners()) {
            if (owner.equals(membership.self())) {
                cleanup.request(settled.epoch()).whenComplete((report, error) -> {
                    if (error != null) {
                        LOG.warn("claimant {}: its own cleanup at epoch {} did not run: {}", owner, settled.epoch(),
                                error.getMessage());
                    }
                });
            } else {
                membership.client().cleanup(owner, settled.epoch()).onFailure(error -> LOG.warn(
                        "claimant {}: cannot ask {} to clean up at epoch {} (an operator can run it there): {}",
                        membership.self(), owner, settled.epoch(), error.getMessage()));
            }
        }
    }

    /**
     * Makes the next map from the current one by {@code step} (the step that ends the change, or one
     * on the way), keeps it and pushes it to every node.
     */
    private void finish(Change change, UnaryOperator<ClusterMap> step) throws IOException {
        ClusterMap current = membership.map();
        ClusterMap last = step.apply(current);
        if (!commit(change.force, current.epoch(), last)) {
            throw new IOException("the map moved past epoch " + current.epoch() + " during the change");
        }
        push(last, current.urls());
    }

    private boolean commit(boolean force, long expectedEpoch, ClusterMap next) throws IOException {
        return force ? membership.commitUnsafely(expectedEpoch, next) : membership.commit(expectedEpoch, next);
    }

    /** Hands {@code map} to every node of it and of {@code others}; a node that misses it pulls it later. */
    private void push(ClusterMap map, List<String> others) {
        Set<String> nodes = new LinkedHashSet<>(map.urls());
        nodes.addAll(others);
        nodes.remove(membership.self());
        List<Future<Void>> pushes = new ArrayList<>();
        List<String> targets = new ArrayList<>(nodes);
        for (String node : targets) {
            pushes.add(membership.client().push(node, map));
        }
        for (int i = 0; i < pushes.size(); i++) {
            try {
                await(pushes.get(i), PUSH_TIMEOUT_MILLIS);
            } catch (IOException e) {
                LOG.warn("cannot push the map of epoch {} to {} (it will pull it): {}", map.epoch(), targets.get(i), e.getMessage());
            }
        }
    }

    /** Has every one of the movement's senders stream its share; returns once all are done. */
    private void streams(Change change, KeyMovement movement) throws IOException {
        change.step = "streaming";
        change.streams += movement.senders().size();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (String source : movement.senders()) {
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    change.entriesStreamed.addAndGet(stream(change, source, movement));
                    change.streamsDone.incrementAndGet();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, membership.worker()));
        }
        for (CompletableFuture<Void> stream : all) {
            try {
                stream.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() instanceof java.io.UncheckedIOException ? e.getCause().getCause() : e.getCause();
                throw new IOException(cause.getMessage(), cause);
            }
        }
    }

    /**
     * Starts {@code source}'s stream and polls it to its end; returns the entries it sent (of its last
     * attempt). A stream that fails is started again (it resumes after its checkpoint), at most
     * {@value #STREAM_ATTEMPTS} times in a row; a source that does not answer for {@code unreachableMillis}
     * fails the change.
     */
    private long stream(Change change, String source, KeyMovement movement) throws IOException {
        boolean started = false;
        int failures = 0;
        long lastAnswer = System.nanoTime();
        String lastProblem = "no answer";
        while (true) {
            if (change.cancelled) {
                throw new ChangeCancelledException();
            }
            try {
                if (!started) {
                    await(membership.client().startStream(source, movement), PUSH_TIMEOUT_MILLIS);
                    started = true;
                }
                MembershipClient.Answer answer = await(membership.client().streamStatus(source, movement.id()), PUSH_TIMEOUT_MILLIS);
                lastAnswer = System.nanoTime();
                if (answer.status() == 404) {
                    started = false;
                    continue;
                }
                JsonObject status = new JsonObject(answer.body());
                if ("done".equals(status.getString("status"))) {
                    Long entries = status.getLong("entries");
                    return entries == null ? 0 : entries;
                }
                if ("failed".equals(status.getString("status"))) {
                    lastProblem = status.getString("reason");
                    started = false;
                    if (++failures >= STREAM_ATTEMPTS) {
                        throw new StreamFailedException("the stream from " + source + " failed " + failures
                                + " times; last: " + lastProblem);
                    }
                }
            } catch (StreamFailedException | ChangeCancelledException e) {
                throw e;
            } catch (IOException e) {
                lastProblem = e.getMessage();
                if (System.nanoTime() - lastAnswer > TimeUnit.MILLISECONDS.toNanos(unreachableMillis)) {
                    throw new IOException("source " + source + " unreachable for " + unreachableMillis + " ms: " + lastProblem, e);
                }
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /** An operator cancelled the change: it rolls back without waiting for its streams. */
    private static final class ChangeCancelledException extends IOException {
        ChangeCancelledException() {
            super("cancelled by an operator");
        }
    }

    /** A stream that kept failing: the change fails without waiting any longer. */
    private static final class StreamFailedException extends IOException {
        StreamFailedException(String message) {
            super(message);
        }
    }

    /** Waits for a Vert.x future from a worker thread; any failure becomes an IOException with its message. */
    static <T> T await(Future<T> future, long timeoutMillis) throws IOException {
        try {
            return future.toCompletionStage().toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IOException(String.valueOf(e.getCause().getMessage()), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no answer within " + timeoutMillis + " ms", e);
        }
    }
}
