package io.kvstore.server.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How a node serves requests and talks to its peers: the limits of a request, the timeouts, the event
 * loops and their transport, and whether calls to one peer are batched. Part of a {@link KvServerConfig};
 * each setting has its default here and nowhere else.
 */
public final class NetworkOptions {
    /** Default largest key, in bytes after percent-decoding. */
    public static final int DEFAULT_MAX_KEY_BYTES = 4096;
    /**
     * The largest {@code maxKeyBytes}: a replica write carries its key in base64 on the request line,
     * which a node reads up to 16 KiB, so a longer key could be stored by its coordinator and by no peer.
     */
    public static final int LARGEST_MAX_KEY_BYTES = 8192;
    /** Default largest request body: 8 MiB, so 4 MiB values pass with room. */
    public static final int DEFAULT_MAX_BODY_BYTES = 8 << 20;
    /** Default requests in flight on this node beyond which it answers 503. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 4096;
    /** Default time a request waits for its replicas before 504. */
    public static final long DEFAULT_REPLICA_TIMEOUT_MILLIS = 2000;
    /** Default idle time after which a connection is closed. */
    public static final long DEFAULT_IDLE_TIMEOUT_SECONDS = 60;
    /** Default time a client may take to send a request: a 4 MiB body at 70 KB/s. */
    public static final long DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;
    /** Default time a stopping node of a cluster goes on serving, closing each connection after its response. */
    public static final long DEFAULT_DRAIN_GRACE_MILLIS = 1000;

    private final int maxKeyBytes;
    private final int maxBodyBytes;
    private final int maxInFlight;
    private final long maxBufferedBodyBytes;
    private final Duration replicaTimeout;
    private final Duration idleTimeout;
    private final Duration requestTimeout;
    private final Duration drainGrace;
    private final int eventLoops;
    private final boolean nativeTransport;
    private final boolean batchReplicaRequests;

    private NetworkOptions(Builder b) {
        this.maxKeyBytes = b.maxKeyBytes;
        this.maxBodyBytes = b.maxBodyBytes;
        this.maxInFlight = b.maxInFlight;
        this.maxBufferedBodyBytes = b.maxBufferedBodyBytes > 0 ? b.maxBufferedBodyBytes
                : Math.max(b.maxBodyBytes, Runtime.getRuntime().maxMemory() / 8);
        this.replicaTimeout = b.replicaTimeout;
        this.idleTimeout = b.idleTimeout;
        this.requestTimeout = b.requestTimeout;
        this.drainGrace = b.drainGrace;
        this.eventLoops = b.eventLoops;
        this.nativeTransport = b.nativeTransport;
        this.batchReplicaRequests = b.batchReplicaRequests;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default. */
    public static NetworkOptions defaults() {
        return builder().build();
    }

    /** The longest key a request may name, in bytes after percent-decoding; default {@value #DEFAULT_MAX_KEY_BYTES}. */
    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    /** The largest request body; a larger one gets 413. Default {@value #DEFAULT_MAX_BODY_BYTES}. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Requests in progress on this node beyond which it answers 503; default {@value #DEFAULT_MAX_IN_FLIGHT}. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /**
     * Bytes of request bodies the node holds at once over all requests; a body that does not fit gets
     * 503 + Retry-After before it is read. Default: an eighth of the heap, at least one largest body.
     */
    public long maxBufferedBodyBytes() {
        return maxBufferedBodyBytes;
    }

    /** How long a request waits for its {@code ack} replica answers before 504. */
    public Duration replicaTimeout() {
        return replicaTimeout;
    }

    /**
     * Connections idle this long are closed. This node's own connections to its peers idle out after
     * half of it, so that it, not the peer, closes them: the nodes of a cluster should share this value.
     */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * Connections that take longer than this to send a request's body (counted from its headers), or
     * longer than this and the idle timeout to send its headers (counted from when they connected or
     * their previous response ended), are closed, however steadily their bytes trickle in. Default
     * 60 s: a 4 MiB body at 70 KB/s.
     */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * How long a node of a cluster that is stopping, once it told its peers, goes on serving before it
     * stops listening: each response then carries {@code Connection: close}, so that clients leave their
     * kept-alive connections to it between requests rather than have one closed under a request. 0:
     * none. Default {@value #DEFAULT_DRAIN_GRACE_MILLIS} ms; a node without peers stops at once.
     */
    public Duration drainGrace() {
        return drainGrace;
    }

    /** HTTP event loops; default one per core. */
    public int eventLoops() {
        return eventLoops;
    }

    /**
     * Whether the event loops use Netty's native epoll transport where it loads (Linux on x86_64 and
     * aarch64; elsewhere Vert.x falls back to java.nio and the server logs why). Default true: it
     * spends fewer system calls and copies per request (docs/BENCHMARKS.md).
     */
    public boolean nativeTransport() {
        return nativeTransport;
    }

    /**
     * Whether the reads and writes this node's event loops send to the same peer in one round of work
     * travel in one request (see docs/DESIGN.md#coordinated-requests). Default true; off, every call is a request.
     */
    public boolean batchReplicaRequests() {
        return batchReplicaRequests;
    }

    /** Builds {@link NetworkOptions}; {@link #build()} rejects settings out of range with a clear message. */
    public static final class Builder {
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private long maxBufferedBodyBytes;
        private Duration replicaTimeout = Duration.ofMillis(DEFAULT_REPLICA_TIMEOUT_MILLIS);
        private Duration idleTimeout = Duration.ofSeconds(DEFAULT_IDLE_TIMEOUT_SECONDS);
        private Duration requestTimeout = Duration.ofSeconds(DEFAULT_REQUEST_TIMEOUT_SECONDS);
        private Duration drainGrace = Duration.ofMillis(DEFAULT_DRAIN_GRACE_MILLIS);
        private int eventLoops = Runtime.getRuntime().availableProcessors();
        private boolean nativeTransport = true;
        private boolean batchReplicaRequests = true;

        private Builder() {
        }

        /** See {@link NetworkOptions#maxKeyBytes()}: in [1, {@value #LARGEST_MAX_KEY_BYTES}]. */
        public Builder maxKeyBytes(int bytes) {
            this.maxKeyBytes = bytes;
            return this;
        }

        public Builder maxBodyBytes(int bytes) {
            this.maxBodyBytes = bytes;
            return this;
        }

        public Builder maxInFlight(int requests) {
            this.maxInFlight = requests;
            return this;
        }

        /** See {@link NetworkOptions#maxBufferedBodyBytes()}; 0 keeps the default. */
        public Builder maxBufferedBodyBytes(long bytes) {
            this.maxBufferedBodyBytes = bytes;
            return this;
        }

        public Builder replicaTimeout(Duration timeout) {
            this.replicaTimeout = Objects.requireNonNull(timeout, "replicaTimeout");
            return this;
        }

        /** See {@link NetworkOptions#drainGrace()}. */
        public Builder drainGrace(Duration grace) {
            this.drainGrace = Objects.requireNonNull(grace, "drainGrace");
            return this;
        }

        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Objects.requireNonNull(timeout, "idleTimeout");
            return this;
        }

        /** See {@link NetworkOptions#requestTimeout()}. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout, "requestTimeout");
            return this;
        }

        public Builder eventLoops(int eventLoops) {
            this.eventLoops = eventLoops;
            return this;
        }

        /** See {@link NetworkOptions#nativeTransport()}; false keeps java.nio. */
        public Builder nativeTransport(boolean nativeTransport) {
            this.nativeTransport = nativeTransport;
            return this;
        }

        /** See {@link NetworkOptions#batchReplicaRequests()}. */
        public Builder batchReplicaRequests(boolean batch) {
            this.batchReplicaRequests = batch;
            return this;
        }

        public NetworkOptions build() {
            require(maxKeyBytes >= 1 && maxKeyBytes <= LARGEST_MAX_KEY_BYTES,
                    "max key bytes must be in [1, " + LARGEST_MAX_KEY_BYTES + "], got " + maxKeyBytes);
            require(maxBodyBytes >= 0, "max body bytes must be >= 0, got " + maxBodyBytes);
            require(maxInFlight >= 1, "max in-flight requests must be >= 1, got " + maxInFlight);
            require(eventLoops >= 1, "event loops must be >= 1, got " + eventLoops);
            require(maxBufferedBodyBytes >= 0, "max buffered body bytes must be >= 0, got " + maxBufferedBodyBytes);
            require(maxBufferedBodyBytes == 0 || maxBufferedBodyBytes >= maxBodyBytes,
                    "max buffered body bytes (" + maxBufferedBodyBytes + ") must hold at least one body of max body bytes ("
                            + maxBodyBytes + ")");
            require(!replicaTimeout.isNegative() && !replicaTimeout.isZero(), "replica timeout must be positive");
            require(!idleTimeout.isNegative() && !idleTimeout.isZero(), "idle timeout must be positive");
            require(!requestTimeout.isNegative() && !requestTimeout.isZero(), "request timeout must be positive");
            require(!drainGrace.isNegative(), "drain grace must be >= 0, got " + drainGrace.toMillis() + " ms");
            return new NetworkOptions(this);
        }
    }

    /** @throws IllegalArgumentException with {@code message} unless {@code condition} holds */
    static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
