package io.kvstore.cluster;

/**
 * How many replicas a request goes to ({@code from}) and how many must answer ({@code ack}), with
 * {@code 1 <= ack <= from <= cluster size}. Defaults: {@code from} = cluster size and {@code ack} =
 * {@code from / 2 + 1} (1/1, 2/2, 2/3, 3/4, 3/5).
 */
public final class Quorum {
    private final int ack;
    private final int from;

    private Quorum(int ack, int from) {
        this.ack = ack;
        this.from = from;
    }

    /** Validated {@code ack}/{@code from} for a cluster of {@code clusterSize} nodes. */
    public static Quorum of(int ack, int from, int clusterSize) {
        if (clusterSize < 1) {
            throw new IllegalArgumentException("cluster size must be >= 1, got " + clusterSize);
        }
        if (from < 1 || from > clusterSize) {
            throw new InvalidQuorumException("from must be in [1, " + clusterSize + "], got " + from);
        }
        if (ack < 1 || ack > from) {
            throw new InvalidQuorumException("ack must be in [1, from=" + from + "], got " + ack);
        }
        return new Quorum(ack, from);
    }

    /** The default for a cluster: all nodes, a majority of them must answer. */
    public static Quorum defaults(int clusterSize) {
        return of(majority(clusterSize), clusterSize, clusterSize);
    }

    /**
     * Parses the {@code ack} and {@code from} query parameters; {@code null} means absent and takes the
     * default ({@code from} = cluster size, {@code ack} = majority of {@code from}).
     *
     * @throws InvalidQuorumException for non-integers or values out of range
     */
    public static Quorum parse(String ack, String from, int clusterSize) {
        int f = from == null ? clusterSize : parseInt("from", from);
        int a = ack == null ? majority(f) : parseInt("ack", ack);
        return of(a, f, clusterSize);
    }

    /** {@code from / 2 + 1}. */
    public static int majority(int from) {
        return from / 2 + 1;
    }

    public int ack() {
        return ack;
    }

    public int from() {
        return from;
    }

    private static int parseInt(String name, String value) {
        if (value.isEmpty() || value.length() > 9) {
            throw new InvalidQuorumException(name + " must be a small positive integer, got '" + value + "'");
        }
        int result = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new InvalidQuorumException(name + " must be a small positive integer, got '" + value + "'");
            }
            result = result * 10 + (c - '0');
        }
        return result;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Quorum && ((Quorum) o).ack == ack && ((Quorum) o).from == from;
    }

    @Override
    public int hashCode() {
        return 31 * ack + from;
    }

    @Override
    public String toString() {
        return ack + "/" + from;
    }
}
