package io.kvstore.kvctl;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.RingTokens;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code ring} partitioner's token ranges over a map's owners, computed from the map alone: the
 * tokens the map lists, or for random ring tokens those hashed from each node's URL. Token {@code t}
 * owns the range {@code (previous token, t]} of key hashes (signed order, wrapping round), and a key's
 * replicas are the owners of the tokens from its own clockwise, each node taken once
 * (docs/PROTOCOL.md, "Cluster membership").
 */
final class RingRanges {
    /** 2^64, the size of the ring of key hashes. */
    private static final double RING = Math.scalb(1.0, 64);

    private final List<String> owners;
    /** Every token of the ring, sorted in signed order. */
    private final long[] tokens;
    /** {@code tokenOwner[i]}: the index in {@link #owners} of the node holding {@code tokens[i]}. */
    private final int[] tokenOwner;

    private RingRanges(List<String> owners, long[] tokens, int[] tokenOwner) {
        this.owners = owners;
        this.tokens = tokens;
        this.tokenOwner = tokenOwner;
    }

    /** The ring of {@code map}'s owners; the map's partitioner must be {@code ring}. */
    static RingRanges of(ClusterMap map) {
        List<String> owners = map.owners();
        List<long[]> perNode = new ArrayList<>(owners.size());
        int total = 0;
        for (String owner : owners) {
            Member member = map.member(owner);
            long[] own = map.ringTokens() == RingTokens.ALLOCATED
                    ? member.tokens().stream().mapToLong(Long::longValue).toArray()
                    : Partitioners.hashedRingTokens(owner, map.virtualNodes());
            perNode.add(own);
            total += own.length;
        }
        long[][] pairs = new long[total][];
        int next = 0;
        for (int node = 0; node < perNode.size(); node++) {
            for (long token : perNode.get(node)) {
                pairs[next++] = new long[] {token, node};
            }
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        long[] tokens = new long[total];
        int[] tokenOwner = new int[total];
        for (int i = 0; i < total; i++) {
            tokens[i] = pairs[i][0];
            tokenOwner[i] = (int) pairs[i][1];
        }
        return new RingRanges(owners, tokens, tokenOwner);
    }

    List<String> owners() {
        return owners;
    }

    /** The ranges {@code owner} is the first replica of, each as {@code {start (exclusive), end (inclusive)}}, in ring order. */
    List<long[]> ranges(int owner) {
        List<long[]> ranges = new ArrayList<>();
        for (int i = 0; i < tokens.length; i++) {
            if (tokenOwner[i] == owner) {
                ranges.add(new long[] {tokens[Math.floorMod(i - 1, tokens.length)], tokens[i]});
            }
        }
        return ranges;
    }

    /**
     * Each owner's share of the key hashes it is one of the first {@code replicas} replicas of (1: the
     * first replica only); the shares of one count add up to {@code replicas}.
     */
    double[] shares(int replicas) {
        double[] shares = new double[owners.size()];
        int count = Math.min(replicas, owners.size());
        boolean[] taken = new boolean[owners.size()];
        for (int i = 0; i < tokens.length; i++) {
            double width = width(tokens[Math.floorMod(i - 1, tokens.length)], tokens[i]);
            Arrays.fill(taken, false);
            for (int found = 0, j = i; found < count; j = (j + 1) % tokens.length) {
                int owner = tokenOwner[j];
                if (!taken[owner]) {
                    taken[owner] = true;
                    shares[owner] += width / RING;
                    found++;
                }
            }
        }
        return shares;
    }

    /** The number of hashes in {@code (start, end]}, wrapping round; the whole ring when they are equal. */
    private static double width(long start, long end) {
        long span = end - start;
        if (span == 0) {
            return RING;
        }
        return (span >>> 1) * 2.0 + (span & 1);
    }
}
