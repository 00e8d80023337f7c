package io.kvstore.server.config;

import io.kvstore.client.TlsEngine;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.ReadRepair;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskFailurePolicy;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import io.kvstore.server.security.NodeTls;
import io.kvstore.server.security.SecretFile;
import io.kvstore.server.security.Secrets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * Everything a {@link io.kvstore.server.KvServer} needs, validated when built. Defaults serve a single node on port
 * 8080 with the LSM engine in {@code ./data}.
 *
 * <pre>{@code
 * KvServerConfig config = KvServerConfig.builder()
 *         .port(8081)
 *         .cluster(List.of("http://127.0.0.1:8081", "http://127.0.0.1:8082"))
 *         .self("http://127.0.0.1:8081")
 *         .dataDirectory(Path.of("data-1"))
 *         .build();
 * }</pre>
 */
public final class KvServerConfig {
    /** Default port. */
    public static final int DEFAULT_PORT = 8080;
    /** Default data directory, relative to the working directory. */
    public static final String DEFAULT_DATA_DIRECTORY = "data";
    /** Default partitioner, one of {@link Partitioners#names()}. */
    public static final String DEFAULT_PARTITIONER = "ring";
    /**
     * Default memtable size in a heap of at least 512 MiB: the embedded store's, 32 MiB. Under G1 a
     * memtable's arrays are never copied by young collections, so its size does not lengthen pauses,
     * and a larger one flushes and merges level 0 less often (docs/TUNING.md#memtable-size-of-the-server).
     * Smaller heaps get {@link #defaultFlushThresholdBytes()}.
     */
    public static final long DEFAULT_FLUSH_THRESHOLD_BYTES = DaoOptions.DEFAULT_FLUSH_THRESHOLD_BYTES;
    /**
     * Default {@link DaoOptions#flushThresholdSpread()} of a node of a cluster (0 for a lone node), so
     * that replicas of the same keys flush and compact on schedules of their own
     * (docs/TUNING.md#replicas-flush-apart-the-flush-threshold-spread).
     */
    public static final double DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD = 0.25;
    /** The least default memtable size, however small the heap. */
    static final long MIN_DEFAULT_FLUSH_THRESHOLD_BYTES = 1L << 20;
    /**
     * The default memtable size in this JVM: {@link #DEFAULT_FLUSH_THRESHOLD_BYTES}, or a sixteenth of
     * the maximum heap if that is less (at least {@link #MIN_DEFAULT_FLUSH_THRESHOLD_BYTES}), so that the
     * active memtable and the two that may wait for their flush stay within a fifth of the heap.
     */
    public static long defaultFlushThresholdBytes() {
        return defaultFlushThresholdBytes(Runtime.getRuntime().maxMemory());
    }

    static long defaultFlushThresholdBytes(long maxHeapBytes) {
        return Math.max(MIN_DEFAULT_FLUSH_THRESHOLD_BYTES, Math.min(DEFAULT_FLUSH_THRESHOLD_BYTES, maxHeapBytes / 16));
    }

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
    /** Default pace of the streams of keys a membership change makes. */
    public static final long DEFAULT_STREAM_BYTES_PER_SECOND = 32L << 20;
    /** Default time a streaming node may stay unreachable before its change fails. */
    public static final long DEFAULT_STREAM_UNREACHABLE_SECONDS = 30;
    /** Default time a client may take to send a request: a 4 MiB body at 70 KB/s. */
    public static final long DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;
    /**
     * Storage threads when writes wait for an fsync (sync policy other than none): enough writers to
     * share each group commit while the event loops keep serving.
     */
    public static final int DEFAULT_SYNCING_STORAGE_THREADS = 64;
    /** Default time between anti-entropy exchanges with every peer: an hour. */
    public static final long DEFAULT_ANTI_ENTROPY_INTERVAL_SECONDS = 3600;
    /** Default {@code --scrub-period-s}: a week, as {@link DaoOptions#DEFAULT_SCRUB_PERIOD}. */
    public static final long DEFAULT_SCRUB_PERIOD_SECONDS = 7 * 24 * 3600;
    /** Default pace of a node's repair scans: 64 MiB/s, well under a disk's sequential rate. */
    public static final long DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND = 64L << 20;
    /**
     * Default {@code --compaction-bytes-per-s}: a node's compactions write at most 20 MiB/s while they keep
     * up (and without limit while level 0 is behind), so that they pause often enough for its request
     * threads to find an idle core; embedded stores default to no limit.
     */
    public static final long DEFAULT_COMPACTION_BYTES_PER_SECOND = 20L << 20;
    /** OpenSSL, for its cheaper handshakes (docs/TUNING.md#tls-engines-openssl-against-the-jdk). */
    public static final TlsEngine DEFAULT_TLS_ENGINE = TlsEngine.OPENSSL;

    private final int port;
    private final String self;
    private final List<String> cluster;
    private final String partitioner;
    private final int virtualNodes;
    private final RingTokens ringTokens;
    private final Engine engine;
    private final DaoOptions storeOptions;
    private final int maxKeyBytes;
    private final int maxBodyBytes;
    private final int maxInFlight;
    private final long maxBufferedBodyBytes;
    private final Duration replicaTimeout;
    private final Duration idleTimeout;
    private final Duration requestTimeout;
    private final int eventLoops;
    private final int storageThreads;
    private final boolean nativeTransport;
    private final Duration antiEntropyInterval;
    private final long repairScanBytesPerSecond;
    private final ReplicationOptions replication;
    private final boolean metrics;
    private final boolean batchReplicaRequests;
    private final Path clusterSecretFile;
    private final Path adminTokenFile;
    private final Path clientTokenFile;
    private final Secrets clusterSecrets;
    private final Secrets adminTokens;
    private final Secrets clientTokens;
    private final Path tlsCertificate;
    private final Path tlsKey;
    private final Path tlsCa;
    private final TlsEngine tlsEngine;
    private final String join;
    private final long streamBytesPerSecond;
    private final Duration streamUnreachableTimeout;
    private final boolean partitionerGiven;
    private final boolean virtualNodesGiven;
    private final boolean ringTokensGiven;

    private KvServerConfig(Builder b, DaoOptions storeOptions, ReplicationOptions replication) {
        this.replication = replication;
        this.port = b.port;
        this.self = b.self != null ? b.self : (b.tlsCertificate == null ? "http" : "https") + "://localhost:" + b.port;
        this.cluster = b.cluster != null ? List.copyOf(b.cluster) : List.of(this.self);
        this.partitioner = b.partitioner;
        this.ringTokens = b.ringTokens();
        this.virtualNodes = b.virtualNodes();
        this.engine = b.engine;
        this.storeOptions = storeOptions;
        this.maxKeyBytes = b.maxKeyBytes;
        this.maxBodyBytes = b.maxBodyBytes;
        this.maxInFlight = b.maxInFlight;
        this.maxBufferedBodyBytes = b.maxBufferedBodyBytes > 0 ? b.maxBufferedBodyBytes
                : Math.max(b.maxBodyBytes, Runtime.getRuntime().maxMemory() / 8);
        this.storageThreads = b.storageThreads >= 0 ? b.storageThreads
                : storeOptions.syncPolicy() == SyncPolicy.NONE ? Runtime.getRuntime().availableProcessors() : DEFAULT_SYNCING_STORAGE_THREADS;
        this.replicaTimeout = b.replicaTimeout;
        this.idleTimeout = b.idleTimeout;
        this.requestTimeout = b.requestTimeout;
        this.eventLoops = b.eventLoops;
        this.nativeTransport = b.nativeTransport;
        this.antiEntropyInterval = b.antiEntropyInterval;
        this.repairScanBytesPerSecond = b.repairScanBytesPerSecond;
        this.metrics = b.metrics;
        this.batchReplicaRequests = b.batchReplicaRequests;
        this.clusterSecretFile = b.clusterSecretFile;
        this.adminTokenFile = b.adminTokenFile;
        this.clientTokenFile = b.clientTokenFile;
        this.clusterSecrets = b.clusterSecretFile == null ? null : SecretFile.read(b.clusterSecretFile, "--cluster-secret-file");
        this.adminTokens = b.adminTokenFile == null ? null : SecretFile.read(b.adminTokenFile, "--admin-token-file");
        this.clientTokens = b.clientTokenFile == null ? null : SecretFile.read(b.clientTokenFile, "--client-token-file");
        this.tlsCertificate = b.tlsCertificate;
        this.tlsKey = b.tlsKey;
        this.tlsCa = b.tlsCa;
        this.tlsEngine = b.tlsEngine;
        this.join = b.join;
        this.streamBytesPerSecond = b.streamBytesPerSecond;
        this.streamUnreachableTimeout = b.streamUnreachableTimeout;
        this.partitionerGiven = b.partitionerGiven;
        this.virtualNodesGiven = b.virtualNodesGiven;
        this.ringTokensGiven = b.ringTokensGiven;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration the standalone server's options describe, a {@code --config} file read as the
     * server reads it: for a launcher of its own around {@link io.kvstore.server.KvServer} that takes the same command line.
     * Needs picocli on the class path, which kv-server declares optional.
     *
     * @throws IllegalArgumentException naming the option for anything wrong in {@code args}, or when they
     *     ask for {@code --help}, which describes no configuration
     */
    public static KvServerConfig fromCommandLine(String... args) {
        return ServerCommand.parseConfiguration(args);
    }

    /** Replication factor, hinted handoff, read repair and tombstone grace (see {@link ReplicationOptions}). */
    public ReplicationOptions replication() {
        return replication;
    }

    /** TCP port to listen on; 0 picks a free one (single node only: a cluster needs known addresses). */
    public int port() {
        return port;
    }

    /** This node's address as it appears in {@link #cluster()}. */
    public String self() {
        return self;
    }

    /** Every node's base URL, in the same order on every node. */
    public List<String> cluster() {
        return cluster;
    }

    /** Where the store keeps its files: {@code storeOptions().dataDirectory()}. */
    public Path dataDirectory() {
        return storeOptions.dataDirectory();
    }

    public String partitioner() {
        return partitioner;
    }

    /**
     * Tokens per node of the {@code ring}: as set, else {@value Partitioners#DEFAULT_VIRTUAL_NODES} for
     * random tokens and {@value TokenAllocator#DEFAULT_TOKENS} for allocated ones.
     */
    public int virtualNodes() {
        return virtualNodes;
    }

    /**
     * Where a new cluster's ring tokens come from (a joining node takes the cluster's choice): as set,
     * else {@link RingTokens#ALLOCATED} for the {@code ring} partitioner and {@link RingTokens#RANDOM}
     * (no tokens kept) for the others.
     */
    public RingTokens ringTokens() {
        return ringTokens;
    }

    public Engine engine() {
        return engine;
    }

    /**
     * The store's options: data directory, sync policy, flush threshold, background priority,
     * compression, block cache, compaction rate and style and tombstone grace as set on the builder, every other
     * option at its {@link DaoOptions} default.
     */
    public DaoOptions storeOptions() {
        return storeOptions;
    }

    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    /**
     * Time from the end of one anti-entropy exchange with every peer to the start of the next;
     * {@link Duration#ZERO} runs them only on demand ({@code POST /v0/admin/repair}).
     */
    public Duration antiEntropyInterval() {
        return antiEntropyInterval;
    }

    /** Bytes per second all the repair scans of this node read together, at most. */
    public long repairScanBytesPerSecond() {
        return repairScanBytesPerSecond;
    }

    /**
     * A member of a running cluster this node joins through, or {@code null}. A node with a cluster map
     * in its data directory that lists it ignores it: it is a member already.
     */
    public String join() {
        return join;
    }

    /** The pace of this node's scans when it streams keys to nodes that gain them (default 32 MiB/s). */
    public long streamBytesPerSecond() {
        return streamBytesPerSecond;
    }

    /** How long a node streaming keys for a change may stay unreachable before the claimant fails the change. */
    public Duration streamUnreachableTimeout() {
        return streamUnreachableTimeout;
    }

    /** Whether {@link #partitioner()} was set rather than defaulted: a joining node then checks it against the map. */
    public boolean partitionerGiven() {
        return partitionerGiven;
    }

    /** Whether {@link #virtualNodes()} was set rather than defaulted. */
    public boolean virtualNodesGiven() {
        return virtualNodesGiven;
    }

    /** Whether {@link #ringTokens()} was set rather than defaulted. */
    public boolean ringTokensGiven() {
        return ringTokensGiven;
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

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

    public int eventLoops() {
        return eventLoops;
    }

    /**
     * Threads for the point reads and writes that may block; 0 runs every call on the event loop.
     * Calls that cannot block run on the event loop anyway ({@link io.kvstore.core.Dao#getAsync},
     * {@link io.kvstore.core.Dao#upsertAsync}): with the LSM engine, a read whose tables are in memory
     * and a write that only appends to the log in the page cache and the memtable. These threads take
     * the rest: a table not known to be in memory, a memtable switch that may wait for flushes, another
     * writer in the way, and every write under a syncing policy. Default with sync policy none: one per
     * core; with a syncing policy {@link #DEFAULT_SYNCING_STORAGE_THREADS}, since each write then waits
     * for an fsync and many writers must share one group commit (docs/BENCHMARKS.md). Range reads
     * always run on Vert.x worker threads.
     */
    public int storageThreads() {
        return storageThreads;
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
     * Whether the node keeps metrics and serves them at {@code GET /metrics} (Prometheus text format).
     * Default true; off, the route answers 404 and requests pay nothing for them.
     */
    public boolean metrics() {
        return metrics;
    }

    /**
     * Whether the reads and writes this node's event loops send to the same peer in one round of work
     * travel in one request (see docs/DESIGN.md#coordinated-requests). Default true; off, every call is a request.
     */
    public boolean batchReplicaRequests() {
        return batchReplicaRequests;
    }

    /**
     * The file of the secret every node of the cluster shares (one or two lines: the one in use, then one
     * being rotated), or null. With it, internal and admin requests are signed and checked
     * (docs/OPERATIONS.md#security); the secret itself is read when the configuration is built and never shown.
     */
    public Path clusterSecretFile() {
        return clusterSecretFile;
    }

    /** The file of the token operators present on admin routes ({@code Authorization: Bearer}), or null. */
    public Path adminTokenFile() {
        return adminTokenFile;
    }

    /** The file of the token clients must present on client routes, or null: client routes are open. */
    public Path clientTokenFile() {
        return clientTokenFile;
    }

    public Secrets clusterSecrets() {
        return clusterSecrets;
    }

    public Secrets adminTokens() {
        return adminTokens;
    }

    public Secrets clientTokens() {
        return clientTokens;
    }

    /** The node's PEM certificate (chain), or null: no TLS. */
    public Path tlsCertificate() {
        return tlsCertificate;
    }

    /** The PEM private key of {@link #tlsCertificate()}. */
    public Path tlsKey() {
        return tlsKey;
    }

    /** The PEM CA that issues the nodes' certificates, or null; with it, nodes authenticate each other (mutual TLS). */
    public Path tlsCa() {
        return tlsCa;
    }

    /**
     * The TLS implementation of this node's port and of its connections to peers, as configured; where
     * {@link TlsEngine#OPENSSL} cannot load, {@link TlsEngine#effective()} is the JDK's.
     */
    public TlsEngine tlsEngine() {
        return tlsEngine;
    }

    /** The node's TLS as its listener and its internode clients apply it. */
    public NodeTls tls() {
        return new NodeTls(tlsCertificate, tlsKey, tlsCa, tlsEngine);
    }

    /** The URL scheme of this cluster's nodes: https with TLS. */
    public String scheme() {
        return tlsCertificate == null ? "http" : "https";
    }

    /** Builds a {@link KvServerConfig}; {@link #build()} rejects inconsistent settings with a clear message. */
    public static final class Builder {
        private int port = DEFAULT_PORT;
        private String self;
        private List<String> cluster;
        private Path dataDirectory = Path.of(DEFAULT_DATA_DIRECTORY);
        private String partitioner = DEFAULT_PARTITIONER;
        private int virtualNodes;
        /** Whether {@link #virtualNodes} holds a value, given or from a configuration file's defaults. */
        private boolean virtualNodesSet;
        /** {@code null} until set: then allocated for the ring, random (no tokens) for other partitioners. */
        private RingTokens ringTokens;
        private Engine engine = Engine.LSM;
        private SyncPolicy syncPolicy = SyncPolicy.NONE;
        private long flushThresholdBytes = defaultFlushThresholdBytes();
        /** Null: {@link #DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD} in a cluster, 0 alone. */
        private Double flushThresholdSpread;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private long maxBufferedBodyBytes = 0;
        private Duration replicaTimeout = Duration.ofMillis(DEFAULT_REPLICA_TIMEOUT_MILLIS);
        private Duration idleTimeout = Duration.ofSeconds(DEFAULT_IDLE_TIMEOUT_SECONDS);
        private Duration requestTimeout = Duration.ofSeconds(DEFAULT_REQUEST_TIMEOUT_SECONDS);
        private int eventLoops = Runtime.getRuntime().availableProcessors();
        private int storageThreads = -1;
        private boolean nativeTransport = true;
        private boolean metrics = true;
        private boolean batchReplicaRequests = true;
        private BackgroundPriority backgroundPriority = DaoOptions.DEFAULT_BACKGROUND_PRIORITY;
        private Compression compression = DaoOptions.DEFAULT_COMPRESSION;
        private long blockCacheBytes = DaoOptions.defaultBlockCacheBytes();
        private long compactionBytesPerSecond = DEFAULT_COMPACTION_BYTES_PER_SECOND;
        private long minFreeBytes = DaoOptions.DEFAULT_MIN_FREE_BYTES;
        private Duration scrubPeriod = DaoOptions.DEFAULT_SCRUB_PERIOD;
        private DiskFailurePolicy diskFailurePolicy = DaoOptions.DEFAULT_DISK_FAILURE_POLICY;
        private CompactionStyle compactionStyle = DaoOptions.DEFAULT_COMPACTION_STYLE;
        private Duration antiEntropyInterval = Duration.ofSeconds(DEFAULT_ANTI_ENTROPY_INTERVAL_SECONDS);
        private long repairScanBytesPerSecond = DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND;
        private final ReplicationOptions.Builder replication = ReplicationOptions.builder();
        private Duration tombstoneGrace = ReplicationOptions.DEFAULT_TOMBSTONE_GRACE;
        private Path clusterSecretFile;
        private Path adminTokenFile;
        private Path clientTokenFile;
        private Path tlsCertificate;
        private Path tlsKey;
        private Path tlsCa;
        private TlsEngine tlsEngine = DEFAULT_TLS_ENGINE;
        private String join;
        private long streamBytesPerSecond = DEFAULT_STREAM_BYTES_PER_SECOND;
        private Duration streamUnreachableTimeout = Duration.ofSeconds(DEFAULT_STREAM_UNREACHABLE_SECONDS);
        private boolean partitionerGiven;
        private boolean virtualNodesGiven;
        private boolean ringTokensGiven;

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder self(String self) {
            this.self = self;
            return this;
        }

        public Builder cluster(List<String> cluster) {
            this.cluster = cluster;
            return this;
        }

        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
            return this;
        }

        public Builder partitioner(String partitioner) {
            this.partitioner = partitioner;
            this.partitionerGiven = true;
            return this;
        }

        public Builder virtualNodes(int virtualNodes) {
            this.virtualNodes = virtualNodes;
            this.virtualNodesSet = true;
            this.virtualNodesGiven = true;
            return this;
        }

        /** See {@link KvServerConfig#ringTokens()}. */
        public Builder ringTokens(RingTokens ringTokens) {
            this.ringTokens = Objects.requireNonNull(ringTokens, "ringTokens");
            this.ringTokensGiven = true;
            return this;
        }

        /** Marks the partitioner, virtual nodes and ring tokens as defaults, not choices (a command line's defaults). */
        Builder placementDefaulted(boolean partitionerDefaulted, boolean virtualNodesDefaulted, boolean ringTokensDefaulted) {
            this.partitionerGiven &= !partitionerDefaulted;
            this.virtualNodesGiven &= !virtualNodesDefaulted;
            this.ringTokensGiven &= !ringTokensDefaulted;
            return this;
        }

        private int virtualNodes() {
            if (virtualNodesSet) {
                return virtualNodes;
            }
            return ringTokens() == RingTokens.ALLOCATED ? TokenAllocator.DEFAULT_TOKENS : Partitioners.DEFAULT_VIRTUAL_NODES;
        }

        private RingTokens ringTokens() {
            if (ringTokens != null) {
                return ringTokens;
            }
            return isRing() ? RingTokens.ALLOCATED : RingTokens.RANDOM;
        }

        private boolean isRing() {
            return "ring".equalsIgnoreCase(partitioner);
        }

        /** See {@link KvServerConfig#join()}. */
        public Builder join(String member) {
            this.join = member;
            return this;
        }

        /** See {@link KvServerConfig#streamBytesPerSecond()}. */
        public Builder streamBytesPerSecond(long bytesPerSecond) {
            this.streamBytesPerSecond = bytesPerSecond;
            return this;
        }

        /** See {@link KvServerConfig#streamUnreachableTimeout()}. */
        public Builder streamUnreachableTimeout(Duration timeout) {
            this.streamUnreachableTimeout = Objects.requireNonNull(timeout, "streamUnreachableTimeout");
            return this;
        }

        public Builder engine(Engine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        public Builder syncPolicy(SyncPolicy syncPolicy) {
            this.syncPolicy = Objects.requireNonNull(syncPolicy, "syncPolicy");
            return this;
        }

        /** The memtable size before a flush; default {@link #defaultFlushThresholdBytes()}. */
        public Builder flushThresholdBytes(long bytes) {
            this.flushThresholdBytes = bytes;
            return this;
        }

        /**
         * See {@link DaoOptions#flushThresholdSpread()}; default {@link #DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD}
         * for a node of a cluster (more than one node, or joining one), 0 for a lone node, which has no
         * replicas to keep apart from.
         */
        public Builder flushThresholdSpread(double spread) {
            this.flushThresholdSpread = spread;
            return this;
        }

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

        /** See {@link KvServerConfig#maxBufferedBodyBytes()}; 0 keeps the default. */
        public Builder maxBufferedBodyBytes(long bytes) {
            this.maxBufferedBodyBytes = bytes;
            return this;
        }

        public Builder replicaTimeout(Duration timeout) {
            this.replicaTimeout = Objects.requireNonNull(timeout, "replicaTimeout");
            return this;
        }

        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Objects.requireNonNull(timeout, "idleTimeout");
            return this;
        }

        /** See {@link KvServerConfig#requestTimeout()}. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout, "requestTimeout");
            return this;
        }

        public Builder eventLoops(int eventLoops) {
            this.eventLoops = eventLoops;
            return this;
        }

        /** See {@link KvServerConfig#storageThreads()}; -1 keeps the default that suits the sync policy. */
        public Builder storageThreads(int threads) {
            this.storageThreads = threads;
            return this;
        }

        /** See {@link KvServerConfig#nativeTransport()}; false keeps java.nio. */
        public Builder nativeTransport(boolean nativeTransport) {
            this.nativeTransport = nativeTransport;
            return this;
        }

        /** See {@link KvServerConfig#metrics()}. */
        public Builder metrics(boolean metrics) {
            this.metrics = metrics;
            return this;
        }

        /** See {@link KvServerConfig#batchReplicaRequests()}. */
        public Builder batchReplicaRequests(boolean batch) {
            this.batchReplicaRequests = batch;
            return this;
        }

        /** See {@link DaoOptions#backgroundPriority()}. */
        public Builder backgroundPriority(BackgroundPriority priority) {
            this.backgroundPriority = Objects.requireNonNull(priority, "backgroundPriority");
            return this;
        }

        /** See {@link DaoOptions#compression()}. */
        public Builder compression(Compression codec) {
            this.compression = Objects.requireNonNull(codec, "compression");
            return this;
        }

        /** See {@link DaoOptions#blockCacheBytes()}; 0 for no cache. */
        public Builder blockCacheBytes(long bytes) {
            this.blockCacheBytes = bytes;
            return this;
        }

        /** See {@link DaoOptions#minFreeBytes()}; 0 for no floor. */
        public Builder minFreeBytes(long bytes) {
            this.minFreeBytes = bytes;
            return this;
        }

        /** See {@link DaoOptions#scrubPeriod()}; zero for no background scrub. */
        public Builder scrubPeriod(Duration period) {
            this.scrubPeriod = Objects.requireNonNull(period, "scrubPeriod");
            return this;
        }

        /** See {@link DaoOptions#diskFailurePolicy()}. */
        public Builder diskFailurePolicy(DiskFailurePolicy policy) {
            this.diskFailurePolicy = Objects.requireNonNull(policy, "diskFailurePolicy");
            return this;
        }

        /** See {@link DaoOptions#compactionBytesPerSecond()}; 0 for no limit. */
        public Builder compactionBytesPerSecond(long bytes) {
            this.compactionBytesPerSecond = bytes;
            return this;
        }

        /** See {@link DaoOptions#compactionStyle()}. */
        public Builder compactionStyle(CompactionStyle style) {
            this.compactionStyle = Objects.requireNonNull(style, "compactionStyle");
            return this;
        }

        /** See {@link KvServerConfig#repairScanBytesPerSecond()}. */
        public Builder repairScanBytesPerSecond(long bytes) {
            this.repairScanBytesPerSecond = bytes;
            return this;
        }

        /** See {@link KvServerConfig#antiEntropyInterval()}; zero for on demand only. */
        public Builder antiEntropyInterval(Duration interval) {
            this.antiEntropyInterval = Objects.requireNonNull(interval, "antiEntropyInterval");
            return this;
        }

        /** RF; 0 (the default) takes the number of nodes in the cluster. See {@link ReplicationOptions}. */
        public Builder replicationFactor(int replicationFactor) {
            replication.replicationFactor(replicationFactor);
            return this;
        }

        /** Hinted handoff on (the default) or off. */
        public Builder hints(boolean hints) {
            replication.hints(hints);
            return this;
        }

        /** See {@link ReplicationOptions#hintWindow()}. */
        public Builder hintWindow(Duration window) {
            replication.hintWindow(window);
            return this;
        }

        /** See {@link ReplicationOptions#hintReplayBytesPerSecond()}. */
        public Builder hintReplayBytesPerSecond(long bytesPerSecond) {
            replication.hintReplayBytesPerSecond(bytesPerSecond);
            return this;
        }

        /** See {@link ReplicationOptions#maxHintBytes()}. */
        public Builder maxHintBytes(long bytes) {
            replication.maxHintBytes(bytes);
            return this;
        }

        /** See {@link ReadRepair}; default blocking. */
        public Builder readRepair(ReadRepair mode) {
            replication.readRepair(mode);
            return this;
        }

        /**
         * How long a tombstone is kept at least, by the store's compactions and by replication (hints
         * older than this are dropped); default {@link ReplicationOptions#DEFAULT_TOMBSTONE_GRACE}.
         */
        public Builder tombstoneGrace(Duration grace) {
            this.tombstoneGrace = grace;
            replication.tombstoneGrace(grace);
            return this;
        }

        /** See {@link KvServerConfig#clusterSecretFile()}; null for none. */
        public Builder clusterSecretFile(Path file) {
            this.clusterSecretFile = file;
            return this;
        }

        /** See {@link KvServerConfig#adminTokenFile()}; null for none. */
        public Builder adminTokenFile(Path file) {
            this.adminTokenFile = file;
            return this;
        }

        /** See {@link KvServerConfig#clientTokenFile()}; null for none. */
        public Builder clientTokenFile(Path file) {
            this.clientTokenFile = file;
            return this;
        }

        /** The node's PEM certificate and private key; with them it listens and connects to peers with TLS. */
        public Builder tls(Path certificate, Path key) {
            this.tlsCertificate = certificate;
            this.tlsKey = key;
            return this;
        }

        /** See {@link KvServerConfig#tlsCa()}. */
        public Builder tlsCa(Path ca) {
            this.tlsCa = ca;
            return this;
        }

        /** See {@link KvServerConfig#tlsEngine()}; default {@link KvServerConfig#DEFAULT_TLS_ENGINE}. */
        public Builder tlsEngine(TlsEngine engine) {
            this.tlsEngine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        public KvServerConfig build() {
            require(port >= 0 && port <= 65535, "port must be in [0, 65535], got " + port);
            require(maxKeyBytes >= 1 && maxKeyBytes <= LARGEST_MAX_KEY_BYTES,
                    "max key bytes must be in [1, " + LARGEST_MAX_KEY_BYTES + "], got " + maxKeyBytes);
            require(maxBodyBytes >= 0, "max body bytes must be >= 0, got " + maxBodyBytes);
            require(maxInFlight >= 1, "max in-flight requests must be >= 1, got " + maxInFlight);
            require(eventLoops >= 1, "event loops must be >= 1, got " + eventLoops);
            require(storageThreads >= -1, "storage threads must be >= 0 (or -1 for the default), got " + storageThreads);
            require(maxBufferedBodyBytes >= 0, "max buffered body bytes must be >= 0, got " + maxBufferedBodyBytes);
            require(maxBufferedBodyBytes == 0 || maxBufferedBodyBytes >= maxBodyBytes,
                    "max buffered body bytes (" + maxBufferedBodyBytes + ") must hold at least one body of max body bytes ("
                            + maxBodyBytes + ")");
            require(!replicaTimeout.isNegative() && !replicaTimeout.isZero(), "replica timeout must be positive");
            require(!idleTimeout.isNegative() && !idleTimeout.isZero(), "idle timeout must be positive");
            require(!requestTimeout.isNegative() && !requestTimeout.isZero(), "request timeout must be positive");
            require(Partitioners.names().contains(partitioner),
                    "unknown partitioner '" + partitioner + "'; expected one of " + Partitioners.names());
            require(virtualNodes() >= 1, "virtual nodes must be >= 1, got " + virtualNodes());
            require(ringTokens() == RingTokens.RANDOM || isRing(),
                    "--ring-tokens allocated needs the ring partitioner, not " + partitioner);
            require(streamBytesPerSecond >= 1, "stream bytes per second must be >= 1, got " + streamBytesPerSecond);
            require(!streamUnreachableTimeout.isNegative() && !streamUnreachableTimeout.isZero(),
                    "stream unreachable timeout must be positive");
            require(!scrubPeriod.isNegative(), "scrub period must be >= 0, got " + scrubPeriod);
            require(!antiEntropyInterval.isNegative(), "anti-entropy interval must be >= 0, got " + antiEntropyInterval);
            require(compactionBytesPerSecond >= 0,
                    "compaction bytes per second must be >= 0 (0: no limit), got " + compactionBytesPerSecond);
            require(blockCacheBytes >= 0, "block cache bytes must be >= 0 (0: no cache), got " + blockCacheBytes);
            require(repairScanBytesPerSecond >= 1, "repair scan bytes per second must be >= 1, got " + repairScanBytesPerSecond);
            require((tlsCertificate == null) == (tlsKey == null), "--tls-cert and --tls-key go together");
            require(tlsCa == null || tlsCertificate != null, "--tls-ca needs --tls-cert and --tls-key");
            requireReadable(tlsCertificate, "--tls-cert");
            requireReadable(tlsKey, "--tls-key");
            requireReadable(tlsCa, "--tls-ca");
            DaoOptions storeOptions = DaoOptions.builder(dataDirectory)
                    .syncPolicy(syncPolicy)
                    .flushThresholdBytes(flushThresholdBytes)
                    .flushThresholdSpread(flushThresholdSpread != null ? flushThresholdSpread
                            : join != null || cluster != null && cluster.size() > 1 ? DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD : 0)
                    .backgroundPriority(backgroundPriority)
                    .compression(compression)
                    .blockCacheBytes(blockCacheBytes)
                    .compactionBytesPerSecond(compactionBytesPerSecond)
                    .compactionStyle(compactionStyle)
                    .minFreeBytes(minFreeBytes)
                    .scrubPeriod(scrubPeriod)
                    .diskFailurePolicy(diskFailurePolicy)
                    .tombstoneGrace(tombstoneGrace == null ? ReplicationOptions.DEFAULT_TOMBSTONE_GRACE : tombstoneGrace)
                    .build();
            ReplicationOptions replicationOptions = replication.build();
            KvServerConfig config = new KvServerConfig(this, storeOptions, replicationOptions);
            // A joining node's replication factor is checked against the cluster's map instead.
            require(join != null || replicationOptions.replicationFactor() <= config.cluster.size(), "replication factor "
                    + replicationOptions.replicationFactor() + " exceeds the " + config.cluster.size() + " nodes of the cluster");
            for (String node : config.cluster) {
                checkUrl(node, config.scheme());
            }
            checkUrl(config.self, config.scheme());
            if (join != null) {
                String other = config.scheme().equals("https") ? "http" : "https";
                require(!join.startsWith(other + "://"), "--join " + join + ": this node "
                        + (other.equals("https") ? "has no --tls-cert, so it speaks plain HTTP and cannot join a cluster of"
                                + " https:// nodes; give it --tls-cert and --tls-key as theirs"
                                : "has --tls-cert, so it speaks TLS and cannot join a cluster of http:// nodes; start it"
                                        + " without --tls-cert and --tls-key")
                        + " (every node of a cluster speaks TLS, or none)");
                checkUrl(join, config.scheme());
            }
            require(new HashSet<>(config.cluster).size() == config.cluster.size(), "duplicate node in cluster " + config.cluster);
            require(config.cluster.contains(config.self),
                    "self " + config.self + " is not in the cluster " + config.cluster);
            require(port != 0 || config.cluster.size() == 1, "a cluster node needs a fixed port, not 0");
            return config;
        }

        private static void requireReadable(Path file, String option) {
            require(file == null || java.nio.file.Files.isReadable(file), option + " " + file + " cannot be read");
        }

        private static void checkUrl(String url, String scheme) {
            try {
                NodeUrl.parse(url, scheme);
            } catch (IllegalArgumentException e) {
                // This node's scheme is known here: name the one form that fits.
                throw new IllegalArgumentException("node URL must look like " + scheme + "://host:port"
                        + (scheme.equals("https") ? " (with TLS)" : "") + ", got '" + url + "'", e);
            }
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
