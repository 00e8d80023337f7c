package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.internal.ArcPlacement;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which node sends which key to which node when placement changes from one map's owners to another's.
 * For a key whose replicas change, its old replicas are the <em>survivors</em> (replicas after the
 * change too) and the <em>losers</em>, its new replicas the survivors and the <em>gainers</em>; the
 * plan gives each gainer one old replica to receive the key from.
 *
 * <p><b>Join and decommission: losers paired with gainers.</b> The i-th loser in the old replica order
 * sends the key to the i-th gainer in the new replica order, so each gainer receives one copy. Since
 * each loser hands what it held to a gainer of its own, a write held by q old replicas is held by q new
 * ones: a write acknowledged by a quorum stays on a quorum. Any one holder per gainer would not do: of
 * {a,b,c}, a write acknowledged by {b,c}, with c leaving and its gainer d fed by a, ends on {a,b,d}
 * once. Gainers beyond the losers (the replication factor grows) receive from the first loser, or from
 * the first old replica when none loses the key; losers beyond the gainers send nothing.
 *
 * <p><b>Removal of a dead node ({@link #fromSurvivors()}).</b> A key the dead node was a replica of is
 * sent by every live old replica to every gainer, since a quorum write that counted the dead node may
 * be on any one of the live replicas, a different one for each write, so only the union of all of them
 * is sure to hold it; that is RF - 1 copies per gainer at a constant RF. A key the dead node did not
 * hold is paired as in a join.
 *
 * <p>Which nodes lose keys depends on the partitioner, not only on the node that joins or leaves:
 * under {@code modn} and {@code jump} (and for a few keys under {@code maglev}) removing one node also
 * moves keys between the nodes that stay. So every change asks all of {@link #senders()} to stream;
 * each scans its store and sends its share, maybe nothing. If a sender fails, {@link #withoutSources}
 * plans what the others send in its place. Copies streamed per change under each partitioner:
 * docs/BENCHMARKS.md, "Keys streamed per change against the ideal". Immutable.
 */
public final class KeyMovement {
    private final long id;
    private final ClusterMap before;
    private final ClusterMap after;
    private final boolean fromSurvivors;
    private final SortedSet<String> failedSources;
    private final Partitioner beforePlacement;
    private final Partitioner afterPlacement;
    private final int beforeCount;
    private final int afterCount;
    /** Per node before the change: its index after it, or -1. */
    private final int[] afterIndex;
    /** Per node before the change: a dead node being removed, which holds nothing any more. */
    private final boolean[] dead;
    /** Per node before the change: a source that failed, whose share others send. */
    private final boolean[] failed;
    private final boolean failover;

    /**
     * @param id            names the change (the epoch of the map that started it), for checkpoints
     * @param before        placement is over its {@link ClusterMap#owners()}
     * @param after         placement is over its {@link ClusterMap#owners()}
     * @param fromSurvivors the change removes the owners of {@code before} that {@code after} lacks, and
     *                      they are dead: every live replica of a key they held sends it
     */
    public KeyMovement(long id, ClusterMap before, ClusterMap after, boolean fromSurvivors) {
        this(id, before, after, fromSurvivors, Collections.emptySortedSet(), before.placement(), after.placement());
    }

    private KeyMovement(long id, ClusterMap before, ClusterMap after, boolean fromSurvivors, SortedSet<String> failedSources,
                        Partitioner beforePlacement, Partitioner afterPlacement) {
        this.id = id;
        this.before = before;
        this.after = after;
        this.fromSurvivors = fromSurvivors;
        this.failedSources = Collections.unmodifiableSortedSet(failedSources);
        this.beforePlacement = beforePlacement;
        this.afterPlacement = afterPlacement;
        this.beforeCount = before.replicationFactor();
        this.afterCount = after.replicationFactor();
        List<String> nodes = beforePlacement.nodes();
        this.afterIndex = new int[nodes.size()];
        this.dead = new boolean[nodes.size()];
        this.failed = new boolean[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            afterIndex[i] = afterPlacement.nodes().indexOf(nodes.get(i));
            dead[i] = fromSurvivors && !after.contains(nodes.get(i));
            failed[i] = failedSources.contains(nodes.get(i));
        }
        this.failover = !failedSources.isEmpty();
    }

    /**
     * The keys a newcomer gains: {@code joining} is the map with {@code url} joining, and after the
     * change it is {@code normal}.
     */
    public static KeyMovement join(long id, ClusterMap joining, String url) {
        return new KeyMovement(id, joining, joining.withState(url, NodeState.NORMAL), false);
    }

    /**
     * The keys that move when {@code url} leaves: {@code leaving} is the map with {@code url} leaving,
     * and after the change it is gone. The leaving node is not the only one that loses keys.
     */
    public static KeyMovement decommission(long id, ClusterMap leaving, String url) {
        return new KeyMovement(id, leaving, leaving.without(url), false);
    }

    /** The keys a dead node held, which its surviving replicas hand to the nodes that gain them. */
    public static KeyMovement removal(long id, ClusterMap before, ClusterMap after) {
        return new KeyMovement(id, before, after, true);
    }

    /**
     * The plan for the senders that did not fail to send what {@code sources} were to send: run it
     * after (or beside) this one, on each of its {@link #senders()}, which no longer include the failed
     * sources. {@code sources} add to those this movement already excludes, so pass each failure once,
     * as it happens, to the latest plan: {@code plan = plan.withoutSources(Set.of(url))}.
     *
     * <p>The new plan sends a key to a gainer only where every sender this movement had for that
     * (key, gainer) failed. Its sender then is another holder: the next loser of the key after the failed
     * one (in old replica order, wrapping around), else the first survivor, that has not failed. A key of
     * a removed dead node needs nothing more (all its live replicas already send it to every gainer), and
     * a key no live holder is left for is not sent at all. So a re-plan resends only the failed sources'
     * share, not everything.
     *
     * <p>What it keeps is weaker than the quorum of a plan that did not fail: the failover source
     * replaces the failed source's copy with its own, which may lack writes the failed source held. A
     * write held by q old replicas, f of them failed sources, ends on at least q - f new replicas (one,
     * not a quorum, for a quorum write at RF 3 with its paired loser failed) until anti-entropy repairs
     * it.
     *
     * <p>The new plan keeps this one's {@link #id()}, and {@link #streamName()} tells it apart.
     *
     * @param sources senders of this movement that failed
     * @throws IllegalArgumentException if one of {@code sources} is not among the nodes this movement
     *                                  (without its failed sources) asks to stream
     */
    public KeyMovement withoutSources(Set<String> sources) {
        for (String source : sources) {
            int node = indexOf(source);
            if (node < 0 || dead[node]) {
                throw new IllegalArgumentException("node " + source + " is not a sender of the change " + id
                        + " (it is not a live owner of the map before it, " + before + ")");
            }
        }
        SortedSet<String> all = new TreeSet<>(failedSources);
        all.addAll(sources);
        return new KeyMovement(id, before, after, fromSurvivors, all, beforePlacement, afterPlacement);
    }

    /** The sources this plan streams without, in URL order; empty for the plan a change starts with. */
    public SortedSet<String> failedSources() {
        return failedSources;
    }

    /**
     * The nodes the change must ask to stream their share, in map order: every owner before the change,
     * except a dead node being removed and the {@link #failedSources()}. Any of them may lose some key.
     */
    public List<String> senders() {
        List<String> senders = new ArrayList<>();
        List<String> owners = beforePlacement.nodes();
        for (int i = 0; i < owners.size(); i++) {
            if (!dead[i] && !failed[i]) {
                senders.add(owners.get(i));
            }
        }
        return senders;
    }

    public long id() {
        return id;
    }

    /**
     * Names this plan's stream on a sender, for its checkpoint and its status: the {@link #id()} for the
     * plan a change starts with ({@code 7}), followed by the failed sources' indexes among the owners
     * before the change for a failover plan ({@code 7-without-0.3}), so that a sender which finished its
     * share of one plan still streams its share of the next.
     */
    public String streamName() {
        StringBuilder name = new StringBuilder().append(id);
        String separator = "-without-";
        for (int i = 0; i < failed.length; i++) {
            if (failed[i]) {
                name.append(separator).append(i);
                separator = ".";
            }
        }
        return name.toString();
    }

    public ClusterMap before() {
        return before;
    }

    public ClusterMap after() {
        return after;
    }

    public boolean fromSurvivors() {
        return fromSurvivors;
    }

    /** The nodes after the change, which {@link #targets} indexes point into. */
    public List<String> afterNodes() {
        return afterPlacement.nodes();
    }

    /**
     * Writes into {@code out} the indexes (into {@link #afterNodes()}) of the nodes {@code self} must
     * send {@code key} to under this plan, and returns how many there are: under a plan with failed
     * sources, only the gainers whose source failed and that {@code self} feeds in its place.
     * Allocation-free.
     *
     * @param self     this node's index among the before owners, or -1 (it then sends nothing)
     * @param out      at least the after map's replication factor long
     * @param scratchB at least the before map's replication factor long
     * @param scratchA at least the after map's replication factor long
     */
    public int targets(byte[] key, int self, int[] out, int[] scratchB, int[] scratchA) {
        if (self < 0 || dead[self] || failed[self]) {
            return 0;
        }
        int[] was = beforePlacement.replicas(key, beforeCount, scratchB);
        if (positionOf(was, beforeCount, self) < 0) {
            return 0;
        }
        return targetsOf(was, afterPlacement.replicas(key, afterCount, scratchA), self, out);
    }

    /**
     * Whether {@code self} (an index among the before owners) may have anything to send under this plan:
     * false only when the placements before and after are both {@link ArcPlacement}s (the ring) and no arc
     * of the hash space has {@code self} send its keys anywhere, so that its stream need not read its store.
     */
    public boolean maySend(int self) {
        if (self < 0 || dead[self] || failed[self]) {
            return false;
        }
        if (!(beforePlacement instanceof ArcPlacement ringBefore) || !(afterPlacement instanceof ArcPlacement ringAfter)) {
            return true;
        }
        long[] beforeTokens = ringBefore.tokens();
        long[] afterTokens = ringAfter.tokens();
        long[] arcs = new long[beforeTokens.length + afterTokens.length];
        System.arraycopy(beforeTokens, 0, arcs, 0, beforeTokens.length);
        System.arraycopy(afterTokens, 0, arcs, beforeTokens.length, afterTokens.length);
        // Between two consecutive tokens of either ring both placements are constant: each token stands
        // for the arc that ends at it (the first also for the arc past the last, which wraps to it).
        int[] replicasBefore = new int[beforeCount];
        int[] replicasAfter = new int[afterCount];
        int[] out = new int[afterCount];
        for (long token : arcs) {
            ringBefore.replicasOfHash(token, beforeCount, replicasBefore);
            if (positionOf(replicasBefore, beforeCount, self) >= 0
                    && targetsOf(replicasBefore, ringAfter.replicasOfHash(token, afterCount, replicasAfter), self, out) > 0) {
                return true;
            }
        }
        return false;
    }

    /** {@link #targets} of a key whose replicas are {@code was} before the change and {@code will} after it. */
    private int targetsOf(int[] was, int[] will, int self, int[] out) {
        int selfAt = positionOf(was, beforeCount, self);
        if (heldByDead(was)) {
            return failover ? 0 : gainers(was, will, out);
        }
        int losers = 0;
        for (int i = 0; i < beforeCount; i++) {
            losers += loses(was, will, i) ? 1 : 0;
        }
        int n = 0;
        int rank = 0;
        for (int j = 0; j < afterCount; j++) {
            if (wasReplica(was, will[j])) {
                continue;
            }
            // The loser of the gainer's rank feeds it; gainers beyond the losers, the first loser or old replica.
            int source = rank < losers ? loserAt(was, will, rank) : losers > 0 ? loserAt(was, will, 0) : 0;
            rank++;
            // A failover plan sends only where that source failed, from the holder that replaces it.
            int sender = failover ? (failed[was[source]] ? failoverFor(was, will, source, losers) : -1) : source;
            if (sender == selfAt) {
                out[n++] = will[j];
            }
        }
        return n;
    }

    /** This node's index among the before owners, or -1. */
    public int indexOf(String url) {
        return beforePlacement.nodes().indexOf(url);
    }

    private boolean heldByDead(int[] was) {
        for (int i = 0; i < beforeCount; i++) {
            if (dead[was[i]]) {
                return true;
            }
        }
        return false;
    }

    /** Writes every gainer of the key into {@code out}; returns how many. */
    private int gainers(int[] was, int[] will, int[] out) {
        int n = 0;
        for (int j = 0; j < afterCount; j++) {
            if (!wasReplica(was, will[j])) {
                out[n++] = will[j];
            }
        }
        return n;
    }

    /** Whether the old replica at {@code position} of {@code was} is not a replica after the change. */
    private boolean loses(int[] was, int[] will, int position) {
        int node = afterIndex[was[position]];
        return node < 0 || positionOf(will, afterCount, node) < 0;
    }

    private boolean wasReplica(int[] was, int afterNode) {
        for (int i = 0; i < beforeCount; i++) {
            if (afterIndex[was[i]] == afterNode) {
                return true;
            }
        }
        return false;
    }

    /** The position in {@code was} of the loser of rank {@code rank} (0 for the first loser). */
    private int loserAt(int[] was, int[] will, int rank) {
        int seen = 0;
        for (int i = 0; i < beforeCount; i++) {
            if (loses(was, will, i) && seen++ == rank) {
                return i;
            }
        }
        throw new IllegalStateException("no loser of rank " + rank);
    }

    /**
     * The position in {@code was} of the holder that sends in place of the failed one at {@code failed}:
     * the next loser after it, wrapping around, else the first survivor, that has not failed; -1 if none.
     */
    private int failoverFor(int[] was, int[] will, int failedAt, int losers) {
        if (loses(was, will, failedAt)) {
            int rank = 0;
            for (int i = 0; i < failedAt; i++) {
                rank += loses(was, will, i) ? 1 : 0;
            }
            for (int k = 1; k < losers; k++) {
                int candidate = loserAt(was, will, (rank + k) % losers);
                if (!failed[was[candidate]]) {
                    return candidate;
                }
            }
        }
        for (int i = 0; i < beforeCount; i++) {
            if (!loses(was, will, i) && !failed[was[i]]) {
                return i;
            }
        }
        return -1;
    }

    private static int positionOf(int[] nodes, int count, int node) {
        for (int i = 0; i < count; i++) {
            if (nodes[i] == node) {
                return i;
            }
        }
        return -1;
    }
}
