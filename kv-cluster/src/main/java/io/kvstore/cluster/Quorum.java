package io.kvstore.cluster;

/**
 * How many replicas a request goes to ({@code from}) and how many must answer ({@code ack}), with
 * {@code 1 <= ack <= from <= cluster size}. Immutable.
 *
 * <p>Defaults: {@code from} = the cluster size, {@code ack} = {@code quorum(from) = from/2 + 1}
 * (1/1, 2/2, 2/3, 3/4, 3/5). Reads and writes that both use {@code ack = quorum(from)} overlap in at
 * least one replica, which is why a read sees the last acknowledged write.
 */
public final class Quorum {
    private static final int MAX_DIGITS_VALUE = 999_999_999;

    private final int ack;
    private final int from;

    private Quorum(int ack, int from) {
        this.ack = ack;
        this.from = from;
    }

    /**
     * A checked quorum.
     *
     * @throws InvalidQuorumException unless {@code 1 <= ack <= from <= clusterSize}
     * @throws IllegalArgumentException if {@code clusterSize < 1}
     */
    public static Quorum of(int ack, int from, int clusterSize) {
        requireClusterSize(clusterSize);
        if (from < 1 || from > clusterSize) {
            throw new InvalidQuorumException("from=" + from + " must be between 1 and the cluster size " + clusterSize);
        }
        if (ack < 1 || ack > from) {
            throw new InvalidQuorumException("ack=" + ack + " must be between 1 and from=" + from);
        }
        return new Quorum(ack, from);
    }

    /** {@code from} = {@code clusterSize}, {@code ack} = {@code clusterSize/2 + 1}. */
    public static Quorum defaults(int clusterSize) {
        requireClusterSize(clusterSize);
        return new Quorum(majorityOf(clusterSize), clusterSize);
    }

    /**
     * Parses the {@code ack} and {@code from} request parameters; {@code null} means absent and takes
     * the default ({@code from} = cluster size, {@code ack} = {@code from/2 + 1} of the actual
     * {@code from}).
     *
     * @throws InvalidQuorumException if a parameter is present but not plain decimal digits (an empty
     *                                one included), or the pair is out of range
     */
    public static Quorum parse(String ack, String from, int clusterSize) {
        return parse(ack, from, clusterSize, clusterSize);
    }

    /**
     * {@link #parse(String, String, int)} with {@code defaultFrom} (the replication factor) taken when
     * {@code from} is absent; {@code from} above it stays legal up to the cluster size.
     */
    public static Quorum parse(String ack, String from, int defaultFrom, int clusterSize) {
        requireClusterSize(clusterSize);
        int parsedFrom = from == null ? defaultFrom : parseParameter("from", from);
        int parsedAck = ack == null ? majorityOf(parsedFrom) : parseParameter("ack", ack);
        if (ack == null && (parsedFrom < 1 || parsedFrom > clusterSize)) {
            // Report the real culprit rather than the derived ack.
            throw new InvalidQuorumException("from=" + parsedFrom + " must be between 1 and the cluster size " + clusterSize);
        }
        return of(parsedAck, parsedFrom, clusterSize);
    }

    /** The majority of {@code from} replicas: {@code from/2 + 1}. */
    public static int majorityOf(int from) {
        return from / 2 + 1;
    }

    /** How many replicas must answer for the request to succeed. */
    public int ack() {
        return ack;
    }

    /** How many replicas the request is sent to. */
    public int from() {
        return from;
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

    /** Plain ASCII decimal digits only: no sign, no spaces, no other scripts' digits, at most 9 of them. */
    private static int parseParameter(String name, String text) {
        if (text.isEmpty() || text.length() > 9) {
            throw new InvalidQuorumException(name + "='" + text + "' is not an integer between 1 and " + MAX_DIGITS_VALUE);
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new InvalidQuorumException(name + "='" + text + "' is not an integer between 1 and " + MAX_DIGITS_VALUE);
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static void requireClusterSize(int clusterSize) {
        if (clusterSize < 1) {
            throw new IllegalArgumentException("cluster size must be >= 1, got " + clusterSize);
        }
    }
}
