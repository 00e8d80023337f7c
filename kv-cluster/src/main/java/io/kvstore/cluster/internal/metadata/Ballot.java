package io.kvstore.cluster.internal.metadata;

import java.util.Comparator;
import java.util.Objects;

/**
 * A Paxos ballot: a round number made unique by the proposing node's URL, ordered by round, then node.
 *
 * @param round a round number, at least 1
 * @param node  the URL of the node proposing in this round
 */
public record Ballot(long round, String node) implements Comparable<Ballot> {
    private static final Comparator<Ballot> ORDER = Comparator.comparingLong(Ballot::round).thenComparing(Ballot::node);

    public Ballot {
        Objects.requireNonNull(node, "node");
        if (round < 1) {
            throw new IllegalArgumentException("a ballot's round must be >= 1, got " + round);
        }
    }

    @Override
    public int compareTo(Ballot other) {
        return ORDER.compare(this, other);
    }

    /** Whether this ballot is at least {@code other}; every ballot is at least {@code null} (no ballot). */
    public boolean atLeast(Ballot other) {
        return other == null || compareTo(other) >= 0;
    }

    @Override
    public String toString() {
        return round + "/" + node;
    }
}
