package io.kvstore.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * How a cluster keeps its replicas in sync: the replication factor, hinted handoff, read repair and the
 * tombstone grace period. Validated when built; every option has a default.
 *
 * <pre>{@code
 * ReplicationOptions options = ReplicationOptions.builder()
 *         .replicationFactor(3)
 *         .readRepair(ReadRepair.BLOCKING)
 *         .hintWindow(Duration.ofHours(3))
 *         .build();
 * }</pre>
 */
public final class ReplicationOptions {
    /** Default hint window in seconds (3 h): a node down longer gets no new hints (anti-entropy covers it). */
    public static final long DEFAULT_HINT_WINDOW_SECONDS = 3 * 3600;
    /** {@link #DEFAULT_HINT_WINDOW_SECONDS} as a duration. */
    public static final Duration DEFAULT_HINT_WINDOW = Duration.ofSeconds(DEFAULT_HINT_WINDOW_SECONDS);
    /** Default rate of hint replay to a node that is back: 4 MiB/s. */
    public static final long DEFAULT_HINT_REPLAY_BYTES_PER_SECOND = 4L << 20;
    /** Default bound of the hints kept for one node: 1 GiB. */
    public static final long DEFAULT_MAX_HINT_BYTES = 1L << 30;
    /** Default tombstone grace period in seconds: 10 days. */
    public static final long DEFAULT_TOMBSTONE_GRACE_SECONDS = 10 * 24 * 3600;
    /** {@link #DEFAULT_TOMBSTONE_GRACE_SECONDS} as a duration. */
    public static final Duration DEFAULT_TOMBSTONE_GRACE = Duration.ofSeconds(DEFAULT_TOMBSTONE_GRACE_SECONDS);

    private final int replicationFactor;
    private final boolean hints;
    private final Duration hintWindow;
    private final long hintReplayBytesPerSecond;
    private final long maxHintBytes;
    private final ReadRepair readRepair;
    private final Duration tombstoneGrace;

    private ReplicationOptions(Builder b) {
        this.replicationFactor = b.replicationFactor;
        this.hints = b.hints;
        this.hintWindow = b.hintWindow;
        this.hintReplayBytesPerSecond = b.hintReplayBytesPerSecond;
        this.maxHintBytes = b.maxHintBytes;
        this.readRepair = b.readRepair;
        this.tombstoneGrace = b.tombstoneGrace;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every default. */
    public static ReplicationOptions defaults() {
        return builder().build();
    }

    /** A builder initialised with these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.replicationFactor = replicationFactor;
        b.hints = hints;
        b.hintWindow = hintWindow;
        b.hintReplayBytesPerSecond = hintReplayBytesPerSecond;
        b.maxHintBytes = maxHintBytes;
        b.readRepair = readRepair;
        b.tombstoneGrace = tombstoneGrace;
        return b;
    }

    /**
     * RF for a cluster of {@code clusterSize} nodes: the configured one, or the cluster size by default.
     *
     * @throws IllegalArgumentException if the configured one exceeds the cluster size
     */
    public int replicationFactor(int clusterSize) {
        if (replicationFactor == 0) {
            return clusterSize;
        }
        if (replicationFactor > clusterSize) {
            throw new IllegalArgumentException("replication factor " + replicationFactor
                    + " exceeds the cluster size " + clusterSize);
        }
        return replicationFactor;
    }

    /** The configured replication factor, 0 for the default (the cluster size). */
    public int replicationFactor() {
        return replicationFactor;
    }

    /** Whether writes a replica did not acknowledge are kept as hints and replayed (default on). */
    public boolean hints() {
        return hints;
    }

    /** A node down longer than this gets no new hints. */
    public Duration hintWindow() {
        return hintWindow;
    }

    /** The most hints are replayed at to a node that is back; below it, replay follows the node's answers. */
    public long hintReplayBytesPerSecond() {
        return hintReplayBytesPerSecond;
    }

    /** The bound of the hints kept for one node; past it new hints are dropped and counted. */
    public long maxHintBytes() {
        return maxHintBytes;
    }

    /** What a GET does with disagreeing answers (default {@link ReadRepair#BLOCKING}). */
    public ReadRepair readRepair() {
        return readRepair;
    }

    /** How long tombstones are kept at least; hints older than this are dropped, never replayed. */
    public Duration tombstoneGrace() {
        return tombstoneGrace;
    }

    @Override
    public String toString() {
        return "ReplicationOptions{rf=" + (replicationFactor == 0 ? "cluster size" : replicationFactor)
                + ", hints=" + (hints ? "on" : "off") + ", hintWindow=" + hintWindow
                + ", hintReplayBytesPerSecond=" + hintReplayBytesPerSecond + ", maxHintBytes=" + maxHintBytes
                + ", readRepair=" + readRepair.id() + ", tombstoneGrace=" + tombstoneGrace + '}';
    }

    /** Collects options; {@link #build()} validates them together. */
    public static final class Builder {
        private int replicationFactor;
        private boolean hints = true;
        private Duration hintWindow = DEFAULT_HINT_WINDOW;
        private long hintReplayBytesPerSecond = DEFAULT_HINT_REPLAY_BYTES_PER_SECOND;
        private long maxHintBytes = DEFAULT_MAX_HINT_BYTES;
        private ReadRepair readRepair = ReadRepair.BLOCKING;
        private Duration tombstoneGrace = DEFAULT_TOMBSTONE_GRACE;

        private Builder() {
        }

        /** RF, at least 1; 0 (the default) means the cluster size. */
        public Builder replicationFactor(int replicationFactor) {
            this.replicationFactor = replicationFactor;
            return this;
        }

        /** Hinted handoff on (the default) or off. */
        public Builder hints(boolean hints) {
            this.hints = hints;
            return this;
        }

        /** A node down longer than this gets no new hints; default {@link #DEFAULT_HINT_WINDOW}. */
        public Builder hintWindow(Duration hintWindow) {
            this.hintWindow = hintWindow;
            return this;
        }

        /** Rate of hint replay; default {@link #DEFAULT_HINT_REPLAY_BYTES_PER_SECOND}. */
        public Builder hintReplayBytesPerSecond(long bytesPerSecond) {
            this.hintReplayBytesPerSecond = bytesPerSecond;
            return this;
        }

        /** Bound of the hints kept for one node; default {@link #DEFAULT_MAX_HINT_BYTES}. */
        public Builder maxHintBytes(long maxHintBytes) {
            this.maxHintBytes = maxHintBytes;
            return this;
        }

        /** What a GET does with disagreeing answers; default {@link ReadRepair#BLOCKING}. */
        public Builder readRepair(ReadRepair readRepair) {
            this.readRepair = readRepair;
            return this;
        }

        /** How long tombstones are kept at least; default {@link #DEFAULT_TOMBSTONE_GRACE}. */
        public Builder tombstoneGrace(Duration tombstoneGrace) {
            this.tombstoneGrace = tombstoneGrace;
            return this;
        }

        /**
         * @throws IllegalArgumentException for an option out of range, or a hint window not shorter than
         *                                  the tombstone grace: a hint replayed after the tombstones it
         *                                  carries were purged elsewhere could bring deleted data back
         */
        public ReplicationOptions build() {
            if (replicationFactor < 0) {
                throw new IllegalArgumentException("replication factor must be >= 1, got " + replicationFactor);
            }
            requirePositive("hint window", hintWindow);
            requirePositive("tombstone grace", tombstoneGrace);
            if (hintReplayBytesPerSecond < 1) {
                throw new IllegalArgumentException("hint replay rate must be >= 1 byte/s, got " + hintReplayBytesPerSecond);
            }
            if (maxHintBytes < 0) {
                throw new IllegalArgumentException("max hint bytes must be >= 0, got " + maxHintBytes);
            }
            Objects.requireNonNull(readRepair, "readRepair");
            if (hints && hintWindow.compareTo(tombstoneGrace) >= 0) {
                throw new IllegalArgumentException("hint window " + hintWindow
                        + " must be shorter than the tombstone grace " + tombstoneGrace);
            }
            return new ReplicationOptions(this);
        }

        private static Duration requirePositive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }
    }
}
