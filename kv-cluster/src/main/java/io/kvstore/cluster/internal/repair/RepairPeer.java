package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Entry;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One side of an anti-entropy exchange: a node's store as a {@link RepairExchange} sees it, either this
 * node's own ({@link RepairResponder}) or another node's reached over the network. Methods never block
 * the caller; failures, an unreachable peer included, complete the stage exceptionally.
 *
 * <p>A tree describes the keys this peer shares with a partner node (both among the first
 * {@code replicationFactor} replicas of the key); it lives until {@link #closeTree} or until it has
 * gone unused for a while, and the versions listed for it apply the same filter.
 */
public interface RepairPeer {

    /** The node this peer stands for, as named in the cluster's node list. */
    String node();

    /**
     * Scans this peer's store within {@code interval} and builds the hash tree of the keys there it
     * shares with {@code partner}; completes once it is built. The scan reads no key outside the
     * interval, and neither do the listings of the tree ({@link #versions}).
     *
     * @param depth    the tree has {@code 2^depth} segments
     * @param interval the keys the tree covers; {@link KeyInterval#ALL} for the whole store
     */
    CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval);

    /**
     * The hashes of the tree's nodes at {@code level} (0 is the root, {@code depth} the segments) with
     * the given indexes, each in {@code [0, 2^level)}, in the same order.
     */
    CompletionStage<long[]> hashes(long tree, int level, int[] indexes);

    /**
     * Lists, in key order, the versions of the keys of the tree's partner filter that fall in
     * {@code segments}, in the tree's interval and in {@code (after, upTo]} ({@code null}: open end), at most
     * {@code maxVersions} of them. The listing reads the store as it is now, not as the tree saw it.
     */
    CompletionStage<VersionPage> versions(long tree, BitSet segments, byte[] after, byte[] upTo, int maxVersions);

    /**
     * Reads the current entries (values or tombstones) of {@code keys}, stopping once about
     * {@code maxBytes} of entries are read (after at least one key).
     */
    CompletionStage<EntryBatch> entries(List<byte[]> keys, long maxBytes);

    /**
     * Stores entries sent by the other side, each with its own timestamp and under the store's usual
     * rule: an older version never replaces a newer one.
     */
    CompletionStage<Void> apply(List<Entry> entries);

    /** Releases a tree. Closing an unknown or already closed tree succeeds. */
    CompletionStage<Void> closeTree(long tree);

    /**
     * Bytes this object has sent and received over the network so far (bodies of requests and
     * answers); 0 for a peer in this process.
     */
    default long wireBytes() {
        return 0;
    }
}
