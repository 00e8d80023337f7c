package io.kvstore.cluster.membership;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.internal.TokenAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The cluster map: an epoch, the replication factor, the partitioner and its parameters, and the nodes
 * with their state, in map order. Immutable; each change makes the map of the next epoch.
 *
 * <p>Map order is the order in which nodes entered the cluster: a joining node is appended, a node
 * that leaves is taken out and the others keep their order. Placement order (the node list a
 * {@link Partitioner} is built over) is map order restricted to the nodes that own ranges, so that with
 * {@code jump} a join adds the last bucket; only the removal of the last node keeps {@code jump}
 * minimal, the removal of another renumbers the nodes after it.
 *
 * <ul>
 *   <li>{@linkplain #owners() owners}: the nodes that hold ranges now, {@code normal} and {@code leaving};
 *       reads and writes go to them.</li>
 *   <li>{@linkplain #futureOwners() future owners}: the nodes that will hold ranges once the change in
 *       progress completes, {@code normal} and {@code joining}; writes also go to those of a key's
 *       future replicas that are not among its current ones.</li>
 * </ul>
 *
 * <p>A change is three maps: the one that starts it (writes go to the owners and the future owners,
 * reads to the owners), the one that says the streams are done ({@linkplain #readsMoved() reads moved}:
 * reads go to the future owners, writes still to both sides), and the one that ends it. So a coordinator
 * one map behind always reads from replicas that every write of the newer map reaches.
 */
public final class ClusterMap {
    private final long epoch;
    private final int replicationFactor;
    private final String partitioner;
    private final int virtualNodes;
    private final List<Member> members;
    private final boolean readsMoved;
    private final long fingerprint;
    /** Kept ready: every internode request carries it and every receiver compares it. */
    private final String fingerprintText;

    /**
     * @throws IllegalArgumentException for an epoch below 1, no owners, duplicate nodes, an unknown
     *                                  partitioner, or a replication factor outside {@code [1, owners]}
     */
    public ClusterMap(long epoch, int replicationFactor, String partitioner, int virtualNodes, List<Member> members) {
        this(epoch, replicationFactor, partitioner, virtualNodes, members, false);
    }

    /**
     * @param readsMoved the change in progress has streamed its keys: reads go to the future owners
     * @throws IllegalArgumentException as the other constructor, and for reads moved while no change is in progress
     */
    public ClusterMap(long epoch, int replicationFactor, String partitioner, int virtualNodes, List<Member> members,
                      boolean readsMoved) {
        this.epoch = epoch;
        this.readsMoved = readsMoved;
        this.replicationFactor = replicationFactor;
        this.partitioner = Objects.requireNonNull(partitioner, "partitioner");
        this.virtualNodes = virtualNodes;
        this.members = List.copyOf(members);
        if (epoch < 1) {
            throw new IllegalArgumentException("epoch must be >= 1, got " + epoch);
        }
        if (!Partitioners.names().contains(partitioner)) {
            throw new IllegalArgumentException("unknown partitioner '" + partitioner + "'; expected one of " + Partitioners.names());
        }
        if (virtualNodes < 1) {
            throw new IllegalArgumentException("virtual nodes must be >= 1, got " + virtualNodes);
        }
        Set<String> seen = new HashSet<>();
        for (Member member : this.members) {
            if (!seen.add(member.url())) {
                throw new IllegalArgumentException("node " + member.url() + " appears twice in the cluster map");
            }
        }
        checkTokens();
        if (readsMoved && !inTransition()) {
            throw new IllegalArgumentException("reads can move only while a change is in progress");
        }
        int owners = owners().size();
        if (replicationFactor < 1 || replicationFactor > owners) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " needs between 1 and "
                    + owners + " owning nodes");
        }
        this.fingerprint = KeyHash.hash64(canonicalText().getBytes(StandardCharsets.UTF_8));
        this.fingerprintText = String.format("%016x", fingerprint);
    }

    /** The first map of a new cluster with {@link RingTokens#RANDOM} tokens: epoch 1, every node {@code normal}, in the given order. */
    public static ClusterMap seed(List<String> nodes, int replicationFactor, String partitioner, int virtualNodes) {
        return seed(nodes, replicationFactor, partitioner, virtualNodes, RingTokens.RANDOM);
    }

    /**
     * The first map of a new cluster: epoch 1, every node {@code normal}, in the given order; with
     * {@link RingTokens#ALLOCATED} each node gets {@code virtualNodes} tokens, allocated in that order
     * as if the nodes had joined one after the other.
     *
     * @throws IllegalArgumentException also for allocated tokens with a partitioner other than {@code ring}
     */
    public static ClusterMap seed(List<String> nodes, int replicationFactor, String partitioner, int virtualNodes,
                                  RingTokens ringTokens) {
        boolean allocate = ringTokens == RingTokens.ALLOCATED && virtualNodes >= 1 && replicationFactor >= 1;
        List<long[]> placed = new ArrayList<>(nodes.size());
        List<Member> members = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            if (allocate) {
                placed.add(TokenAllocator.allocate(placed, virtualNodes, replicationFactor));
                members.add(new Member(node, NodeState.NORMAL, boxed(placed.get(placed.size() - 1))));
            } else {
                members.add(new Member(node, NodeState.NORMAL));
            }
        }
        return new ClusterMap(1, replicationFactor, partitioner, virtualNodes, members);
    }

    public long epoch() {
        return epoch;
    }

    public int replicationFactor() {
        return replicationFactor;
    }

    public String partitioner() {
        return partitioner;
    }

    /** Tokens per node of the {@code ring} partitioner (kept for every partitioner). */
    public int virtualNodes() {
        return virtualNodes;
    }

    /** Where the ring's tokens come from: allocated if the members carry tokens, else random. */
    public RingTokens ringTokens() {
        return !members.isEmpty() && !members.get(0).tokens().isEmpty() ? RingTokens.ALLOCATED : RingTokens.RANDOM;
    }

    /**
     * A hash of everything the map says: two nodes whose maps have the same epoch but different
     * fingerprints hold two different maps, and would place keys differently. The XXH64 (seed 0) of
     * the UTF-8 text {@code epoch \n replicationFactor \n partitioner \n virtualNodes \n} followed by
     * one line per member in map order, {@code url state token,token,...\n} (tokens in decimal).
     */
    public long fingerprint() {
        return fingerprint;
    }

    /** {@link #fingerprint()} as 16 lowercase hexadecimal digits, as internode requests carry it. */
    public String fingerprintText() {
        return fingerprintText;
    }

    private String canonicalText() {
        StringBuilder text = new StringBuilder(64 + members.size() * 48)
                .append(epoch).append('\n').append(replicationFactor).append('\n')
                .append(partitioner).append('\n').append(virtualNodes).append('\n');
        for (Member member : members) {
            text.append(member.url()).append(' ').append(member.state().id()).append(' ');
            List<Long> tokens = member.tokens();
            for (int i = 0; i < tokens.size(); i++) {
                text.append(i == 0 ? "" : ",").append(tokens.get(i));
            }
            text.append('\n');
        }
        // Only when set: a map without it has the fingerprint it had before reads could move.
        if (readsMoved) {
            text.append("reads moved\n");
        }
        return text.toString();
    }

    /** Every node, in map order. */
    public List<Member> members() {
        return members;
    }

    /** Every node's URL, in map order. */
    public List<String> urls() {
        List<String> urls = new ArrayList<>(members.size());
        for (Member member : members) {
            urls.add(member.url());
        }
        return urls;
    }

    /** The nodes that own ranges now ({@code normal} and {@code leaving}), in map order. */
    public List<String> owners() {
        return select(NodeState.NORMAL, NodeState.LEAVING);
    }

    /** The nodes that own ranges once the change in progress completes ({@code normal} and {@code joining}). */
    public List<String> futureOwners() {
        return select(NodeState.NORMAL, NodeState.JOINING);
    }

    /** The partitioner over {@link #owners()}. */
    public Partitioner placement() {
        return placement(owners());
    }

    /** The partitioner over {@link #futureOwners()}. */
    public Partitioner futurePlacement() {
        return placement(futureOwners());
    }

    /**
     * The map's partitioner over {@code nodes}, with their tokens if the map allocates them.
     *
     * @throws IllegalArgumentException if the map allocates tokens and one of {@code nodes} is not in it
     */
    public Partitioner placement(List<String> nodes) {
        if (ringTokens() == RingTokens.RANDOM) {
            return Partitioners.create(partitioner, nodes, virtualNodes);
        }
        List<long[]> tokens = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            Member member = member(node);
            if (member == null) {
                throw new IllegalArgumentException("node " + node + " has no tokens: it is not in the cluster map " + this);
            }
            tokens.add(member.tokenArray());
        }
        return Partitioners.ring(nodes, tokens);
    }

    /** The node's state, or {@code null} if it is not in the map. */
    public NodeState state(String url) {
        Member member = member(url);
        return member == null ? null : member.state();
    }

    /** The member called {@code url}, or {@code null}. */
    public Member member(String url) {
        for (Member member : members) {
            if (member.url().equals(url)) {
                return member;
            }
        }
        return null;
    }

    public boolean contains(String url) {
        return state(url) != null;
    }

    /** Whether a change is under way: some node is {@code joining} or {@code leaving}. */
    public boolean inTransition() {
        for (Member member : members) {
            if (member.state() != NodeState.NORMAL) {
                return true;
            }
        }
        return false;
    }

    /**
     * The node every change goes through: the first node of the map that is not {@code joining}. Only
     * it makes maps of a new epoch, so two changes can never both make epoch E+1.
     */
    public String claimant() {
        for (Member member : members) {
            if (member.state() != NodeState.JOINING) {
                return member.url();
            }
        }
        throw new IllegalStateException("no owning node in " + this);
    }

    /**
     * The next epoch's map with {@code url} appended as {@code joining}; with allocated tokens, it gets
     * {@link #virtualNodes()} tokens chosen given those of every member.
     */
    public ClusterMap withJoining(String url) {
        if (contains(url)) {
            throw new IllegalArgumentException("node " + url + " is already in the cluster map as " + state(url).id());
        }
        List<Member> next = new ArrayList<>(members);
        if (ringTokens() == RingTokens.ALLOCATED) {
            List<long[]> placed = new ArrayList<>(members.size());
            for (Member member : members) {
                placed.add(member.tokenArray());
            }
            next.add(new Member(url, NodeState.JOINING, boxed(TokenAllocator.allocate(placed, virtualNodes, replicationFactor))));
        } else {
            next.add(new Member(url, NodeState.JOINING));
        }
        return next(next);
    }

    /** The next epoch's map with {@code url} in state {@code state}. */
    public ClusterMap withState(String url, NodeState state) {
        List<Member> next = new ArrayList<>(members.size());
        boolean found = false;
        for (Member member : members) {
            if (member.url().equals(url)) {
                next.add(member.withState(state));
                found = true;
            } else {
                next.add(member);
            }
        }
        if (!found) {
            throw new IllegalArgumentException("node " + url + " is not in the cluster map");
        }
        return next(next);
    }

    /** The next epoch's map without {@code url}. */
    public ClusterMap without(String url) {
        List<Member> next = new ArrayList<>(members);
        if (!next.removeIf(member -> member.url().equals(url))) {
            throw new IllegalArgumentException("node " + url + " is not in the cluster map");
        }
        return next(next);
    }

    private ClusterMap next(List<Member> nextMembers) {
        return new ClusterMap(epoch + 1, replicationFactor, partitioner, virtualNodes, nextMembers);
    }

    /**
     * Whether the change in progress has moved reads to the future owners (its streams are done); writes
     * still reach both sides until the map that ends it.
     */
    public boolean readsMoved() {
        return readsMoved;
    }

    /**
     * The next epoch's map, the same change in progress with reads on the future owners.
     *
     * @throws IllegalStateException if no change is in progress or its reads moved already
     */
    public ClusterMap withReadsMoved() {
        if (!inTransition() || readsMoved) {
            throw new IllegalStateException("reads move once, during a change; map: " + this);
        }
        return new ClusterMap(epoch + 1, replicationFactor, partitioner, virtualNodes, members, true);
    }

    /** The nodes reads go to, and a coordinator over: the owners, or the future owners once reads moved. */
    public List<String> readOwners() {
        return readsMoved ? futureOwners() : owners();
    }

    /** The partitioner over {@link #readOwners()}. */
    public Partitioner readPlacement() {
        return placement(readOwners());
    }

    /**
     * During a change, the other side's owners, whose replicas of a key a write also reaches: the future
     * owners, or the owners once reads moved.
     */
    public List<String> pendingOwners() {
        return readsMoved ? owners() : futureOwners();
    }

    /** The partitioner over {@link #pendingOwners()}. */
    public Partitioner pendingPlacement() {
        return placement(pendingOwners());
    }

    /** Either every member has {@link #virtualNodes()} tokens, distinct over the map, on a ring, or none has any. */
    private void checkTokens() {
        if (ringTokens() == RingTokens.RANDOM) {
            for (Member member : members) {
                if (!member.tokens().isEmpty()) {
                    throw new IllegalArgumentException("node " + member.url() + " has tokens but " + members.get(0).url()
                            + " has none: either every node of the map has tokens or none has");
                }
            }
            return;
        }
        if (!partitioner.equals("ring")) {
            throw new IllegalArgumentException("nodes have tokens but the partitioner is " + partitioner
                    + "; only the ring has tokens");
        }
        Set<Long> seen = new HashSet<>();
        for (Member member : members) {
            if (member.tokens().size() != virtualNodes) {
                throw new IllegalArgumentException("node " + member.url() + " has " + member.tokens().size()
                        + " tokens; the map gives every node " + virtualNodes);
            }
            for (Long token : member.tokens()) {
                if (!seen.add(token)) {
                    throw new IllegalArgumentException("token " + token + " of node " + member.url()
                            + " is held by another node of the map too");
                }
            }
        }
    }

    private static List<Long> boxed(long[] tokens) {
        List<Long> list = new ArrayList<>(tokens.length);
        for (long token : tokens) {
            list.add(token);
        }
        return list;
    }

    private List<String> select(NodeState a, NodeState b) {
        List<String> urls = new ArrayList<>(members.size());
        for (Member member : members) {
            if (member.state() == a || member.state() == b) {
                urls.add(member.url());
            }
        }
        return urls;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClusterMap)) {
            return false;
        }
        ClusterMap other = (ClusterMap) o;
        return epoch == other.epoch && replicationFactor == other.replicationFactor && virtualNodes == other.virtualNodes
                && partitioner.equals(other.partitioner) && members.equals(other.members) && readsMoved == other.readsMoved;
    }

    @Override
    public int hashCode() {
        return Objects.hash(epoch, replicationFactor, partitioner, virtualNodes, members, readsMoved);
    }

    @Override
    public String toString() {
        return ClusterMapCodec.toJson(this);
    }
}
