package io.kvstore.server.config;

import static io.kvstore.server.config.NetworkOptions.require;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.internal.membership.KeyStreamer;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything a {@link io.kvstore.server.KvServer} needs, validated when built. Defaults serve a single node on port
 * 8080 with the LSM engine in {@code ./data}.
 *
 * <p>Besides the node's own settings (its port and address, the cluster, placement, joining, repair) a
 * configuration is made of the options objects it configures: the store's {@link DaoOptions}, the
 * {@link ReplicationOptions}, the {@link NetworkOptions} and the {@link SecurityOptions}. Each setting
 * has its default in one place, its options class, except where the node's differ from an embedded
 * store's ({@link #defaultFlushThresholdBytes()}, {@link #DEFAULT_COMPACTION_BYTES_PER_SECOND},
 * {@link #DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD}). Building a configuration reads no file: the node
 * reads its secrets when it starts.
 *
 * <pre>{@code
 * KvServerConfig config = KvServerConfig.builder()
 *         .port(8081)
 *         .cluster(List.of("http://127.0.0.1:8081", "http://127.0.0.1:8082"))
 *         .self("http://127.0.0.1:8081")
 *         .dataDirectory(Path.of("data-1"))
 *         .store(store -> store.syncPolicy(SyncPolicy.GROUP_COMMIT))
 *         .network(network -> network.maxBodyBytes(16 << 20))
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
     * Default {@link DaoOptions#flushThresholdSpread()} of a node of a cluster (0 for a lone node), so
     * that replicas of the same keys flush and compact on schedules of their own
     * (docs/TUNING.md#replicas-flush-apart-the-flush-threshold-spread).
     */
    public static final double DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD = 0.25;
    /** The least default memtable size, however small the heap. */
    static final long MIN_DEFAULT_FLUSH_THRESHOLD_BYTES = 1L << 20;
    /**
     * The default memtable size in this JVM: the embedded store's,
     * {@link DaoOptions#DEFAULT_FLUSH_THRESHOLD_BYTES}, or a sixteenth of the maximum heap if that is less
     * (at least {@link #MIN_DEFAULT_FLUSH_THRESHOLD_BYTES}), so that the active memtable and the two that
     * may wait for their flush stay within a fifth of the heap. Under G1 a memtable's arrays are never
     * copied by young collections, so its size does not lengthen pauses, and a larger one flushes and
     * merges level 0 less often (docs/TUNING.md#memtable-size-of-the-server).
     */
    public static long defaultFlushThresholdBytes() {
        return defaultFlushThresholdBytes(Runtime.getRuntime().maxMemory());
    }

    static long defaultFlushThresholdBytes(long maxHeapBytes) {
        return Math.max(MIN_DEFAULT_FLUSH_THRESHOLD_BYTES,
                Math.min(DaoOptions.DEFAULT_FLUSH_THRESHOLD_BYTES, maxHeapBytes / 16));
    }

    /** Default pace of the streams of keys a membership change makes. */
    public static final long DEFAULT_STREAM_BYTES_PER_SECOND = 32L << 20;
    /** Default time a streaming node may stay unreachable before its change fails. */
    public static final long DEFAULT_STREAM_UNREACHABLE_SECONDS = 30;
    /**
     * Storage threads when writes wait for an fsync (sync policy other than none): enough writers to
     * share each group commit while the event loops keep serving.
     */
    public static final int DEFAULT_SYNCING_STORAGE_THREADS = 64;
    /** Default time between anti-entropy exchanges with every peer: an hour. */
    public static final long DEFAULT_ANTI_ENTROPY_INTERVAL_SECONDS = 3600;
    /** Default pace of a node's repair scans: 64 MiB/s, well under a disk's sequential rate. */
    public static final long DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND = 64L << 20;
    /**
     * Default {@code --compaction-bytes-per-s}: a node's compactions write at most 20 MiB/s while they keep
     * up (and without limit while level 0 is behind), so that they pause often enough for its request
     * threads to find an idle core; embedded stores default to no limit.
     */
    public static final long DEFAULT_COMPACTION_BYTES_PER_SECOND = 20L << 20;
    /** Default {@link #backgroundBudget()}. */
    public static final BackgroundBudgetMode DEFAULT_BACKGROUND_BUDGET = BackgroundBudgetMode.ADAPTIVE;
    /**
     * Default {@link #backgroundBudgetMinBytesPerSecond()}: 4 MiB/s, of which compactions get at least
     * 1.6 MiB/s and each other kind at least 0.4 MiB/s however pressed the requests are.
     */
    public static final long DEFAULT_BACKGROUND_BUDGET_MIN_BYTES_PER_SECOND = 4L << 20;

    private final int port;
    private final String self;
    private final List<String> cluster;
    private final String partitioner;
    private final int virtualNodes;
    private final RingTokens ringTokens;
    private final Engine engine;
    private final DaoOptions storeOptions;
    private final ReplicationOptions replication;
    private final NetworkOptions network;
    private final SecurityOptions security;
    private final int storageThreads;
    private final boolean metrics;
    private final Duration antiEntropyInterval;
    private final long repairScanBytesPerSecond;
    private final String join;
    private final long streamBytesPerSecond;
    private final int streamBatchBytes;
    private final BackgroundBudgetMode backgroundBudget;
    private final long backgroundBudgetMinBytesPerSecond;
    private final Duration streamUnreachableTimeout;
    private final boolean partitionerGiven;
    private final boolean virtualNodesGiven;
    private final boolean ringTokensGiven;

    private KvServerConfig(Builder b, DaoOptions storeOptions, ReplicationOptions replication, NetworkOptions network,
                           SecurityOptions security) {
        this.storeOptions = storeOptions;
        this.replication = replication;
        this.network = network;
        this.security = security;
        this.port = b.port;
        this.self = b.self != null ? b.self : security.scheme() + "://localhost:" + b.port;
        this.cluster = b.cluster != null ? List.copyOf(b.cluster) : List.of(this.self);
        this.partitioner = b.partitioner;
        this.ringTokens = b.ringTokens();
        this.virtualNodes = b.virtualNodes();
        this.engine = b.engine;
        this.storageThreads = b.storageThreads >= 0 ? b.storageThreads
                : storeOptions.syncPolicy() == SyncPolicy.NONE ? Runtime.getRuntime().availableProcessors() : DEFAULT_SYNCING_STORAGE_THREADS;
        this.metrics = b.metrics;
        this.backgroundBudget = b.backgroundBudget;
        this.backgroundBudgetMinBytesPerSecond = b.backgroundBudgetMinBytesPerSecond;
        this.antiEntropyInterval = b.antiEntropyInterval;
        this.repairScanBytesPerSecond = b.repairScanBytesPerSecond;
        this.join = b.join;
        this.streamBytesPerSecond = b.streamBytesPerSecond;
        this.streamBatchBytes = b.streamBatchBytes;
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

    /**
     * The store's options: those set through {@link Builder#store}, the node's defaults where they differ
     * from an embedded store's, and the tombstone grace of {@link #replication()}.
     */
    public DaoOptions storeOptions() {
        return storeOptions;
    }

    /** Replication factor, hinted handoff, read repair and tombstone grace (see {@link ReplicationOptions}). */
    public ReplicationOptions replication() {
        return replication;
    }

    /** Request limits, timeouts, event loops, transport and batching (see {@link NetworkOptions}). */
    public NetworkOptions network() {
        return network;
    }

    /** Where the secrets and the TLS material are (see {@link SecurityOptions}); none is read while building. */
    public SecurityOptions security() {
        return security;
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

    /**
     * Bytes of entries a stream gathers for a node before it sends them (default and most 4 MiB): a node
     * that gains keys writes each batch as a table, and the stream keeps its checkpoint after each round.
     */
    public int streamBatchBytes() {
        return streamBatchBytes;
    }

    /**
     * How the node sets the one budget its compactions, streams, hint replay and repair scans share:
     * {@link BackgroundBudgetMode#ADAPTIVE} (the default) from what the requests leave, never above each
     * kind's own rate; {@link BackgroundBudgetMode#FIXED}, each at its own rate (docs/TUNING.md,
     * background budget).
     */
    public BackgroundBudgetMode backgroundBudget() {
        return backgroundBudget;
    }

    /** The least bytes per second an adaptive background budget keeps, so that background work always progresses. */
    public long backgroundBudgetMinBytesPerSecond() {
        return backgroundBudgetMinBytesPerSecond;
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
     * Whether the node keeps metrics and serves them at {@code GET /metrics} (Prometheus text format).
     * Default true; off, the route answers 404 and requests pay nothing for them.
     */
    public boolean metrics() {
        return metrics;
    }

    /** The URL scheme of this cluster's nodes: https with TLS. */
    public String scheme() {
        return security.scheme();
    }

    /**
     * Builds a {@link KvServerConfig}; {@link #build()} rejects inconsistent settings with a clear message
     * and reads no file.
     */
    public static final class Builder {
        private int port = DEFAULT_PORT;
        private String self;
        private List<String> cluster;
        private String partitioner = DEFAULT_PARTITIONER;
        private int virtualNodes;
        /** Whether {@link #virtualNodes} holds a value, given or from a configuration file's defaults. */
        private boolean virtualNodesSet;
        /** {@code null} until set: then allocated for the ring, random (no tokens) for other partitioners. */
        private RingTokens ringTokens;
        private Engine engine = Engine.LSM;
        private final DaoOptions.Builder store = DaoOptions.builder(Path.of(DEFAULT_DATA_DIRECTORY))
                .flushThresholdBytes(defaultFlushThresholdBytes())
                .compactionBytesPerSecond(DEFAULT_COMPACTION_BYTES_PER_SECOND);
        /** Null: {@link #DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD} in a cluster, 0 alone. */
        private Double flushThresholdSpread;
        private final ReplicationOptions.Builder replication = ReplicationOptions.builder();
        private final NetworkOptions.Builder network = NetworkOptions.builder();
        private final SecurityOptions.Builder security = SecurityOptions.builder();
        private int storageThreads = -1;
        private boolean metrics = true;
        private BackgroundBudgetMode backgroundBudget = DEFAULT_BACKGROUND_BUDGET;
        private long backgroundBudgetMinBytesPerSecond = DEFAULT_BACKGROUND_BUDGET_MIN_BYTES_PER_SECOND;
        private Duration antiEntropyInterval = Duration.ofSeconds(DEFAULT_ANTI_ENTROPY_INTERVAL_SECONDS);
        private long repairScanBytesPerSecond = DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND;
        private String join;
        private long streamBytesPerSecond = DEFAULT_STREAM_BYTES_PER_SECOND;
        private int streamBatchBytes = KeyStreamer.MAX_BATCH_BYTES;
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

        /** Where the store keeps its files; default {@value #DEFAULT_DATA_DIRECTORY}. */
        public Builder dataDirectory(Path dataDirectory) {
            store.dataDirectory(dataDirectory);
            return this;
        }

        /**
         * Sets the store's options, on a builder that holds the node's defaults (see
         * {@link KvServerConfig}). Two of them are the node's to set: the flush threshold spread
         * ({@link #flushThresholdSpread}) and the tombstone grace, which is replication's.
         */
        public Builder store(Consumer<DaoOptions.Builder> settings) {
            settings.accept(store);
            return this;
        }

        /** Sets the {@link ReplicationOptions}; their tombstone grace is the store's too. */
        public Builder replication(Consumer<ReplicationOptions.Builder> settings) {
            settings.accept(replication);
            return this;
        }

        /** Sets the {@link NetworkOptions}. */
        public Builder network(Consumer<NetworkOptions.Builder> settings) {
            settings.accept(network);
            return this;
        }

        /** Sets the {@link SecurityOptions}. */
        public Builder security(Consumer<SecurityOptions.Builder> settings) {
            settings.accept(security);
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

        /** See {@link KvServerConfig#streamBatchBytes()}. */
        public Builder streamBatchBytes(int bytes) {
            this.streamBatchBytes = bytes;
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

        /** See {@link KvServerConfig#storageThreads()}; -1 keeps the default that suits the sync policy. */
        public Builder storageThreads(int threads) {
            this.storageThreads = threads;
            return this;
        }

        /** See {@link KvServerConfig#metrics()}. */
        public Builder metrics(boolean metrics) {
            this.metrics = metrics;
            return this;
        }

        /** See {@link KvServerConfig#backgroundBudget()}. */
        public Builder backgroundBudget(BackgroundBudgetMode mode) {
            this.backgroundBudget = Objects.requireNonNull(mode, "backgroundBudget");
            return this;
        }

        /** See {@link KvServerConfig#backgroundBudgetMinBytesPerSecond()}. */
        public Builder backgroundBudgetMinBytesPerSecond(long bytesPerSecond) {
            this.backgroundBudgetMinBytesPerSecond = bytesPerSecond;
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

        public KvServerConfig build() {
            require(port >= 0 && port <= 65535, "port must be in [0, 65535], got " + port);
            require(storageThreads >= -1, "storage threads must be >= 0 (or -1 for the default), got " + storageThreads);
            NetworkOptions networkOptions = network.build();
            require(Partitioners.names().contains(partitioner),
                    "unknown partitioner '" + partitioner + "'; expected one of " + Partitioners.names());
            require(virtualNodes() >= 1, "virtual nodes must be >= 1, got " + virtualNodes());
            require(ringTokens() == RingTokens.RANDOM || isRing(),
                    "--ring-tokens allocated needs the ring partitioner, not " + partitioner);
            require(streamBytesPerSecond >= 1, "stream bytes per second must be >= 1, got " + streamBytesPerSecond);
            require(streamBatchBytes >= KeyStreamer.MIN_BATCH_BYTES && streamBatchBytes <= KeyStreamer.MAX_BATCH_BYTES,
                    "stream batch bytes must be in [" + KeyStreamer.MIN_BATCH_BYTES + ", " + KeyStreamer.MAX_BATCH_BYTES
                            + "], got " + streamBatchBytes);
            require(!streamUnreachableTimeout.isNegative() && !streamUnreachableTimeout.isZero(),
                    "stream unreachable timeout must be positive");
            require(!antiEntropyInterval.isNegative(), "anti-entropy interval must be >= 0, got " + antiEntropyInterval);
            require(repairScanBytesPerSecond >= 1, "repair scan bytes per second must be >= 1, got " + repairScanBytesPerSecond);
            require(backgroundBudgetMinBytesPerSecond >= 1,
                    "background budget min bytes per second must be >= 1, got " + backgroundBudgetMinBytesPerSecond);
            SecurityOptions securityOptions = security.build();
            ReplicationOptions replicationOptions = replication.build();
            DaoOptions storeOptions = store
                    .flushThresholdSpread(flushThresholdSpread != null ? flushThresholdSpread
                            : join != null || cluster != null && cluster.size() > 1 ? DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD : 0)
                    .tombstoneGrace(replicationOptions.tombstoneGrace())
                    .build();
            KvServerConfig config = new KvServerConfig(this, storeOptions, replicationOptions, networkOptions, securityOptions);
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

        private static void checkUrl(String url, String scheme) {
            try {
                NodeUrl.parse(url, scheme);
            } catch (IllegalArgumentException e) {
                // This node's scheme is known here: name the one form that fits.
                throw new IllegalArgumentException("node URL must look like " + scheme + "://host:port"
                        + (scheme.equals("https") ? " (with TLS)" : "") + ", got '" + url + "'", e);
            }
        }
    }
}
