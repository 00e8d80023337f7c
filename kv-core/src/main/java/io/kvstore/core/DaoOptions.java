package io.kvstore.core;

import io.kvstore.core.background.BackgroundBudget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * Configuration of a store, validated when built. Every option has a documented default; only the
 * data directory is required.
 *
 * <pre>{@code
 * DaoOptions options = DaoOptions.builder(Path.of("data"))
 *         .flushThresholdBytes(64 << 20)
 *         .syncPolicy(SyncPolicy.GROUP_COMMIT)
 *         .build();
 * }</pre>
 */
public final class DaoOptions {
    /** Default memtable size before it is frozen and flushed: 32 MiB. */
    public static final long DEFAULT_FLUSH_THRESHOLD_BYTES = 32L << 20;
    /** Default Bloom filter bits per key: 10 (about 1% false positives). */
    public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;
    /** Default uncompressed SSTable data block size: 4 KiB. */
    public static final int DEFAULT_BLOCK_SIZE_BYTES = 4 << 10;
    /** Default number of tables that triggers a background compaction: 4. */
    public static final int DEFAULT_COMPACTION_TRIGGER = 4;
    /** Default group-commit interval: 2 ms. */
    public static final long DEFAULT_GROUP_COMMIT_INTERVAL_MILLIS = 2;
    /** Default number of frozen memtables allowed to wait for flushing before writers stall: 2. */
    public static final int DEFAULT_MAX_FROZEN_MEMTABLES = 2;
    /** Default CPU priority of the flush and compaction threads: see {@link #backgroundPriority()}. */
    public static final BackgroundPriority DEFAULT_BACKGROUND_PRIORITY = BackgroundPriority.IDLE;

    /** Default compaction style: {@link CompactionStyle#LEVELED}. */
    public static final CompactionStyle DEFAULT_COMPACTION_STYLE = CompactionStyle.LEVELED;
    /** Default size of the tables of leveled compaction's levels 1 and deeper: 64 MiB. */
    public static final long DEFAULT_TARGET_TABLE_BYTES = 64L << 20;
    /**
     * Default {@link #levelBaseBytes()}, in memtables: 16 times {@link #flushThresholdBytes()}, four
     * level 0 compactions' worth at the default trigger (docs/BENCHMARKS.md has the sizes tried).
     */
    public static final int DEFAULT_LEVEL_BASE_MEMTABLES = 16;
    /**
     * Default {@link #idleCompactionDelay()}: 10 seconds, long enough that a pause within a burst of
     * writes does not start a compaction that the next flush would have started anyway.
     */
    public static final Duration DEFAULT_IDLE_COMPACTION_DELAY = Duration.ofSeconds(10);
    /** Default compaction rate limit: 0, none. */
    public static final long DEFAULT_COMPACTION_BYTES_PER_SECOND = 0;
    /** Default rate of writes where level 0 reaches the slowdown: 16 MiB/s, RocksDB's {@code delayed_write_rate}. */
    public static final long DEFAULT_DELAYED_WRITE_BYTES_PER_SECOND = 16L << 20;
    /** Default codec of table data blocks: {@link Compression#LZ4}. */
    public static final Compression DEFAULT_COMPRESSION = Compression.LZ4;
    /** Default free space below which writes are refused: 64 MiB, room for a flush and the log to finish. */
    public static final long DEFAULT_MIN_FREE_BYTES = 64L << 20;
    /** Default {@link #diskFailurePolicy()}: {@link DiskFailurePolicy#KEEP_SERVING}. */
    public static final DiskFailurePolicy DEFAULT_DISK_FAILURE_POLICY = DiskFailurePolicy.KEEP_SERVING;
    /** Default {@link #scrubPeriod()} in seconds: a week. */
    public static final long DEFAULT_SCRUB_PERIOD_SECONDS = 7 * 24 * 3600;
    /** Default {@link #scrubPeriod()}: a week. */
    public static final Duration DEFAULT_SCRUB_PERIOD = Duration.ofSeconds(DEFAULT_SCRUB_PERIOD_SECONDS);
    /** Default time a tombstone is kept before compaction may drop it: 10 days. */
    public static final Duration DEFAULT_TOMBSTONE_GRACE = Duration.ofDays(10);
    /**
     * {@link #timestampToMillis()} for timestamps of a hybrid logical clock (kv-cluster's
     * {@code HybridClock}): wall-clock milliseconds since the epoch above 16 bits of counter. The default.
     */
    public static final LongUnaryOperator HYBRID_TIMESTAMPS = timestamp -> timestamp >>> 16;
    /** {@link #timestampToMillis()} for timestamps in microseconds since the epoch, as {@link KvStore} writes them. */
    public static final LongUnaryOperator MICROSECOND_TIMESTAMPS = timestamp -> Math.floorDiv(timestamp, 1000L);

    private final Path dataDirectory;
    private final long flushThresholdBytes;
    private final double flushThresholdSpread;
    private final SyncPolicy syncPolicy;
    private final long groupCommitIntervalMillis;
    private final int bloomBitsPerKey;
    private final int blockSizeBytes;
    private final int compactionTrigger;
    private final int maxFrozenMemtables;
    private final BackgroundPriority backgroundPriority;
    private final Duration tombstoneGrace;
    private final Compression compression;
    private final long blockCacheBytes;
    private final long compactionBytesPerSecond;
    private final long delayedWriteBytesPerSecond;
    private final CompactionStyle compactionStyle;
    private final long targetTableBytes;
    private final long levelBaseBytes;
    private final Duration idleCompactionDelay;
    private final LongUnaryOperator timestampToMillis;
    private final LongSupplier clock;
    private final Storage storage;
    private final long minFreeBytes;
    private final DiskFailurePolicy diskFailurePolicy;
    private final Duration scrubPeriod;
    private final BackgroundBudget backgroundBudget;

    private DaoOptions(Builder b) {
        this.dataDirectory = b.dataDirectory;
        this.flushThresholdBytes = b.flushThresholdBytes;
        this.flushThresholdSpread = b.flushThresholdSpread;
        this.syncPolicy = b.syncPolicy;
        this.groupCommitIntervalMillis = b.groupCommitIntervalMillis;
        this.bloomBitsPerKey = b.bloomBitsPerKey;
        this.blockSizeBytes = b.blockSizeBytes;
        this.compactionTrigger = b.compactionTrigger;
        this.maxFrozenMemtables = b.maxFrozenMemtables;
        this.backgroundPriority = b.backgroundPriority;
        this.tombstoneGrace = b.tombstoneGrace;
        this.compression = b.compression;
        this.blockCacheBytes = b.blockCacheBytes;
        this.compactionBytesPerSecond = b.compactionBytesPerSecond;
        this.delayedWriteBytesPerSecond = b.delayedWriteBytesPerSecond;
        this.compactionStyle = b.compactionStyle;
        this.targetTableBytes = b.targetTableBytes;
        this.levelBaseBytes = b.levelBaseBytes;
        this.idleCompactionDelay = b.idleCompactionDelay;
        this.timestampToMillis = b.timestampToMillis;
        this.clock = b.clock;
        this.storage = b.storage;
        this.minFreeBytes = b.minFreeBytes;
        this.diskFailurePolicy = b.diskFailurePolicy;
        this.scrubPeriod = b.scrubPeriod;
        this.backgroundBudget = b.backgroundBudget;
    }

    /**
     * Default bound of the cache of decompressed table blocks: an eighth of the JVM's maximum heap
     * ({@link Runtime#maxMemory()}), or 64 MiB if the heap has no limit, so that a small heap is not
     * filled with blocks.
     */
    public static long defaultBlockCacheBytes() {
        long heap = Runtime.getRuntime().maxMemory();
        return heap == Long.MAX_VALUE ? 64L << 20 : heap / 8;
    }

    /** Starts a builder for a store kept in {@code dataDirectory} (created if missing). */
    public static Builder builder(Path dataDirectory) {
        return new Builder(dataDirectory);
    }

    /** Options with every default, for a store kept in {@code dataDirectory}. */
    public static DaoOptions defaults(Path dataDirectory) {
        return builder(dataDirectory).build();
    }

    /** A builder initialised with these options, to derive a variant. */
    public Builder toBuilder() {
        Builder b = new Builder(dataDirectory);
        b.flushThresholdBytes = flushThresholdBytes;
        b.flushThresholdSpread = flushThresholdSpread;
        b.syncPolicy = syncPolicy;
        b.groupCommitIntervalMillis = groupCommitIntervalMillis;
        b.bloomBitsPerKey = bloomBitsPerKey;
        b.blockSizeBytes = blockSizeBytes;
        b.compactionTrigger = compactionTrigger;
        b.maxFrozenMemtables = maxFrozenMemtables;
        b.backgroundPriority = backgroundPriority;
        b.tombstoneGrace = tombstoneGrace;
        b.compression = compression;
        b.blockCacheBytes = blockCacheBytes;
        b.compactionBytesPerSecond = compactionBytesPerSecond;
        b.delayedWriteBytesPerSecond = delayedWriteBytesPerSecond;
        b.compactionStyle = compactionStyle;
        b.targetTableBytes = targetTableBytes;
        b.levelBaseBytes = levelBaseBytes;
        b.idleCompactionDelay = idleCompactionDelay;
        b.timestampToMillis = timestampToMillis;
        b.clock = clock;
        b.storage = storage;
        b.minFreeBytes = minFreeBytes;
        b.diskFailurePolicy = diskFailurePolicy;
        b.scrubPeriod = scrubPeriod;
        b.backgroundBudget = backgroundBudget;
        return b;
    }

    /** The directory holding every file of the store. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /**
     * Memtable size in bytes past which it is frozen and flushed to a table: the bytes its arena holds,
     * which are the keys and values plus about 40 bytes of links and version data per write.
     */
    public long flushThresholdBytes() {
        return flushThresholdBytes;
    }

    /**
     * How far below {@link #flushThresholdBytes()} a memtable may be frozen, as a fraction of it: each
     * memtable is frozen at a size drawn uniformly from {@code [threshold * (1 - spread), threshold]}.
     * 0 (the default) freezes every memtable at the threshold. Replicas that receive the same writes
     * otherwise flush, and so compact, at the same moments; a spread sets each on its own schedule, so
     * a quorum is less often waiting on replicas that are all busy compacting.
     */
    public double flushThresholdSpread() {
        return flushThresholdSpread;
    }

    /** When the write-ahead log is forced to the device. */
    public SyncPolicy syncPolicy() {
        return syncPolicy;
    }

    /** Interval between fsyncs under {@link SyncPolicy#GROUP_COMMIT}. */
    public long groupCommitIntervalMillis() {
        return groupCommitIntervalMillis;
    }

    /** Bloom filter bits per key in each table; 0 disables filters. */
    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    /** Target size of an SSTable data block. */
    public int blockSizeBytes() {
        return blockSizeBytes;
    }

    /**
     * Number of tables that starts a background compaction: sorted runs of similar size under size-tiered
     * compaction (each level 0 table, and each level a leveled store left, whole), level 0 tables under
     * leveled compaction, where writes also slow down from five times ({@link #delayedWriteBytesPerSecond()})
     * and stop at nine times this many level 0 tables until compaction catches up.
     */
    public int compactionTrigger() {
        return compactionTrigger;
    }

    /** Frozen memtables allowed to queue for flushing before writers wait. */
    public int maxFrozenMemtables() {
        return maxFrozenMemtables;
    }

    /**
     * CPU priority of the flush and compaction threads on Linux, with JNA on the class path (see
     * {@link BackgroundPriority}); {@link BackgroundPriority#NORMAL} leaves them as they are. Default
     * {@link #DEFAULT_BACKGROUND_PRIORITY}, {@link BackgroundPriority#IDLE}: a flush or compaction at
     * the normal priority takes a core for tens of milliseconds and every request queues behind it;
     * even at nice 19 it keeps a core the scheduler then counts as busy, so requests queue on the
     * other. At SCHED_IDLE it takes only what requests leave, and still gets a small share of a busy
     * core (the writers stall, and stop competing, when it falls behind). docs/TUNING.md has the
     * figures.
     */
    public BackgroundPriority backgroundPriority() {
        return backgroundPriority;
    }

    /**
     * How tables are merged: {@link CompactionStyle#LEVELED} (the default) or
     * {@link CompactionStyle#SIZE_TIERED}. A store may change style between opens: its tables are
     * reorganised by the compactions that follow.
     */
    public CompactionStyle compactionStyle() {
        return compactionStyle;
    }

    /** Under leveled compaction, the size at which a compaction cuts its output into a new table. */
    public long targetTableBytes() {
        return targetTableBytes;
    }

    /**
     * Under leveled compaction, the most bytes of the level that level 0 is compacted into, the base
     * level. Levels are sized from the data: the last holds what it holds, each level above a tenth of
     * the one below, and the base level is the highest one whose share exceeds a tenth of this size;
     * its limit is that share, so between a tenth of this size and this size. A store no larger than
     * this compacts level 0 straight into its last level. Level 0 is compacted once it holds
     * {@link #compactionTrigger()} tables. Default: {@link #DEFAULT_LEVEL_BASE_MEMTABLES} times
     * {@link #flushThresholdBytes()}, at least {@link #targetTableBytes()}; a base level several times
     * what a level 0 compaction brings keeps it from rewriting much more than it brings, while levels
     * above the last that are too large for the data leave room for old versions.
     */
    public long levelBaseBytes() {
        return levelBaseBytes != 0 ? levelBaseBytes
                : Math.max(targetTableBytes, DEFAULT_LEVEL_BASE_MEMTABLES * flushThresholdBytes);
    }

    /**
     * Under leveled compaction, how long writes must pause before level 0 is held to its share of the
     * store: once no write has arrived for this long, level 0 tables flushed since the last compaction
     * that hold more than a tenth of the bytes of the levels below are merged into the base level, so a
     * small store at rest does not keep up to {@link #compactionTrigger()} memtables of shadowed
     * versions. Writers never wait for it, and a large store, whose level 0 is a small share, never
     * does it. {@link Duration#ZERO} turns it off. Default {@link #DEFAULT_IDLE_COMPACTION_DELAY}.
     */
    public Duration idleCompactionDelay() {
        return idleCompactionDelay;
    }

    /**
     * Most bytes per second compactions write, so that a large compaction is spread over time rather
     * than taking a core and the disk from requests in a burst; 0 (the default) for no limit. The limit
     * holds while level 0 keeps up: from twice {@link #compactionTrigger()} flushed level-0 tables on,
     * compactions run unlimited until it is back under them, so a limit below what the writes need never
     * brings writers to their slowdown (level 0 then holds up to twice the trigger, and reads look at
     * more tables). Flushes are never limited, as writers wait for them.
     */
    public long compactionBytesPerSecond() {
        return compactionBytesPerSecond;
    }

    /**
     * Under leveled compaction, the most bytes per second (keys and values) all writers together may
     * write once level 0 holds five times {@link #compactionTrigger()} tables, lowered by a fifth for
     * each further table until the stop at nine times (never below 16 KiB/s): a brake on a burst that
     * compaction cannot follow, spread over every write, rather than a wait for each write that would
     * cap the writes per second whatever their size, and one that tightens until compaction keeps up.
     */
    public long delayedWriteBytesPerSecond() {
        return delayedWriteBytesPerSecond;
    }

    /**
     * How the data blocks of new tables are compressed; each table records its codec, so a store
     * holds tables of several codecs after a change. Default {@link #DEFAULT_COMPRESSION}.
     */
    public Compression compression() {
        return compression;
    }

    /**
     * Bound in bytes of the store's cache of decompressed data blocks of compressed tables, so that
     * reads of a block held in it do not decompress it again; 0 turns it off. Blocks of uncompressed
     * tables are read in place and never cached. Default {@link #defaultBlockCacheBytes()}.
     */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    /**
     * How long a tombstone is kept before compaction may drop it, measured from its timestamp (see
     * {@link #timestampToMillis()}) to {@link #clock()}. A replica that missed a delete learns of it from
     * a peer's tombstone during repair; once every peer has dropped it, the missed delete's old value
     * would come back. So the grace must exceed the longest time a replica may stay unrepaired. A
     * tombstone is dropped only after its grace and only where no older version can hide behind it.
     * Default {@link #DEFAULT_TOMBSTONE_GRACE}; {@link Duration#ZERO} drops them as soon as that is safe.
     */
    public Duration tombstoneGrace() {
        return tombstoneGrace;
    }

    /**
     * Maps an {@linkplain Entry#timestamp() entry timestamp} to wall-clock milliseconds since the epoch,
     * so that the engine can tell how old a version is (for {@link #tombstoneGrace()}). Timestamps are
     * the writer's: default {@link #HYBRID_TIMESTAMPS}, as kv-cluster's nodes write them;
     * {@link #MICROSECOND_TIMESTAMPS} for {@link KvStore}'s clock (KvStore sets it itself).
     */
    public LongUnaryOperator timestampToMillis() {
        return timestampToMillis;
    }

    /** The wall clock the engine reads, in milliseconds since the epoch; tests replace it. */
    public LongSupplier clock() {
        return clock;
    }

    /**
     * The file system every file of the store is reached through: default {@link Storage#local()};
     * tests put a faulty one in its place. The RocksDB engine does its own file access and ignores it.
     */
    public Storage storage() {
        return storage;
    }

    /**
     * The free space on the data directory's disk below which the store refuses writes
     * ({@link InsufficientStorageException}) rather than let its log and flushes run into a full disk;
     * it takes them again once space is back. Reads are never refused. Default
     * {@link #DEFAULT_MIN_FREE_BYTES}; 0 turns the floor off. The RocksDB engine ignores it.
     */
    public long minFreeBytes() {
        return minFreeBytes;
    }

    /**
     * What the store does once a table block fails its checksum or cannot be read, or a write or fsync
     * fails: {@link DiskFailurePolicy#KEEP_SERVING} (the default) quarantines a damaged table and
     * refuses only its key interval; {@link DiskFailurePolicy#STOP} fails every read and write from the
     * first such error on. The RocksDB engine ignores it.
     */
    public DiskFailurePolicy diskFailurePolicy() {
        return diskFailurePolicy;
    }

    /**
     * How long the background scrub takes to read every live table once and check its checksums, so
     * that damage in data no read touches is found while other replicas still hold it: it reads at the
     * table bytes over this period (at least 64 KiB/s) on a thread of its own at
     * {@link #backgroundPriority()}, and starts a pass once per period (the first an hour after the store
     * opens, or one period if that is shorter). Damage it finds is handled as a failed read's
     * ({@link #diskFailurePolicy()}). Default {@link #DEFAULT_SCRUB_PERIOD}; {@link Duration#ZERO} turns
     * it off ({@link Dao#scrub} still runs a pass when asked). The RocksDB engine ignores it.
     */
    public Duration scrubPeriod() {
        return scrubPeriod;
    }

    /**
     * The budget compactions (and cleanups) and scrubs draw from, shared with the node's other
     * background work, or null (the default) for their own rates only. Compactions then write at their
     * share of it, never above {@link #compactionBytesPerSecond()} if that is set, and unlimited while
     * level 0 is behind as without a budget; scrubs draw from it on top of their own rate
     * (docs/TUNING.md, background budget). The engine does not own it: one budget may serve several
     * stores. Ignored by engines other than the LSM.
     */
    public BackgroundBudget backgroundBudget() {
        return backgroundBudget;
    }

    @Override
    public String toString() {
        return "DaoOptions{dataDirectory=" + dataDirectory
                + ", flushThresholdBytes=" + flushThresholdBytes
                + ", flushThresholdSpread=" + flushThresholdSpread
                + ", syncPolicy=" + syncPolicy
                + ", groupCommitIntervalMillis=" + groupCommitIntervalMillis
                + ", bloomBitsPerKey=" + bloomBitsPerKey
                + ", blockSizeBytes=" + blockSizeBytes
                + ", compactionTrigger=" + compactionTrigger
                + ", maxFrozenMemtables=" + maxFrozenMemtables
                + ", backgroundPriority=" + backgroundPriority
                + ", tombstoneGrace=" + tombstoneGrace
                + ", minFreeBytes=" + minFreeBytes
                + ", diskFailurePolicy=" + diskFailurePolicy
                + ", scrubPeriod=" + scrubPeriod
                + ", backgroundBudget=" + backgroundBudget
                + ", compression=" + compression
                + ", blockCacheBytes=" + blockCacheBytes
                + ", compactionBytesPerSecond=" + compactionBytesPerSecond
                + ", delayedWriteBytesPerSecond=" + delayedWriteBytesPerSecond
                + ", compactionStyle=" + compactionStyle
                + ", targetTableBytes=" + targetTableBytes
                + ", levelBaseBytes=" + levelBaseBytes()
                + ", idleCompactionDelay=" + idleCompactionDelay + '}';
    }

    /** Builds {@link DaoOptions}; {@link #build()} rejects out-of-range values. */
    public static final class Builder {
        private Path dataDirectory;
        private long flushThresholdBytes = DEFAULT_FLUSH_THRESHOLD_BYTES;
        private double flushThresholdSpread;
        private SyncPolicy syncPolicy = SyncPolicy.NONE;
        private long groupCommitIntervalMillis = DEFAULT_GROUP_COMMIT_INTERVAL_MILLIS;
        private int bloomBitsPerKey = DEFAULT_BLOOM_BITS_PER_KEY;
        private int blockSizeBytes = DEFAULT_BLOCK_SIZE_BYTES;
        private int compactionTrigger = DEFAULT_COMPACTION_TRIGGER;
        private int maxFrozenMemtables = DEFAULT_MAX_FROZEN_MEMTABLES;
        private BackgroundPriority backgroundPriority = DEFAULT_BACKGROUND_PRIORITY;
        private Duration tombstoneGrace = DEFAULT_TOMBSTONE_GRACE;
        private Compression compression = DEFAULT_COMPRESSION;
        private long blockCacheBytes = defaultBlockCacheBytes();
        private long compactionBytesPerSecond = DEFAULT_COMPACTION_BYTES_PER_SECOND;
        private long delayedWriteBytesPerSecond = DEFAULT_DELAYED_WRITE_BYTES_PER_SECOND;
        private CompactionStyle compactionStyle = DEFAULT_COMPACTION_STYLE;
        private long targetTableBytes = DEFAULT_TARGET_TABLE_BYTES;
        /** 0: {@link #DEFAULT_LEVEL_BASE_MEMTABLES} memtables. */
        private long levelBaseBytes;
        private Duration idleCompactionDelay = DEFAULT_IDLE_COMPACTION_DELAY;
        private LongUnaryOperator timestampToMillis = HYBRID_TIMESTAMPS;
        private LongSupplier clock = System::currentTimeMillis;
        private Storage storage = Storage.local();
        private long minFreeBytes = DEFAULT_MIN_FREE_BYTES;
        private DiskFailurePolicy diskFailurePolicy = DEFAULT_DISK_FAILURE_POLICY;
        private Duration scrubPeriod = DEFAULT_SCRUB_PERIOD;
        private BackgroundBudget backgroundBudget;

        private Builder(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
        }

        /** Where the store keeps its files (created if missing), in place of the one the builder started with. */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
            return this;
        }

        public Builder flushThresholdBytes(long bytes) {
            this.flushThresholdBytes = bytes;
            return this;
        }

        /** See {@link DaoOptions#flushThresholdSpread()}: in {@code [0, 0.5]}. */
        public Builder flushThresholdSpread(double spread) {
            this.flushThresholdSpread = spread;
            return this;
        }

        public Builder syncPolicy(SyncPolicy policy) {
            this.syncPolicy = Objects.requireNonNull(policy, "syncPolicy");
            return this;
        }

        public Builder groupCommitIntervalMillis(long millis) {
            this.groupCommitIntervalMillis = millis;
            return this;
        }

        public Builder bloomBitsPerKey(int bits) {
            this.bloomBitsPerKey = bits;
            return this;
        }

        public Builder blockSizeBytes(int bytes) {
            this.blockSizeBytes = bytes;
            return this;
        }

        public Builder compactionTrigger(int tables) {
            this.compactionTrigger = tables;
            return this;
        }

        public Builder maxFrozenMemtables(int count) {
            this.maxFrozenMemtables = count;
            return this;
        }

        public Builder backgroundPriority(BackgroundPriority priority) {
            this.backgroundPriority = Objects.requireNonNull(priority, "backgroundPriority");
            return this;
        }

        public Builder tombstoneGrace(Duration grace) {
            this.tombstoneGrace = Objects.requireNonNull(grace, "tombstoneGrace");
            return this;
        }

        public Builder compactionStyle(CompactionStyle style) {
            this.compactionStyle = Objects.requireNonNull(style, "compactionStyle");
            return this;
        }

        public Builder targetTableBytes(long bytes) {
            this.targetTableBytes = bytes;
            return this;
        }

        public Builder levelBaseBytes(long bytes) {
            this.levelBaseBytes = bytes;
            return this;
        }

        public Builder idleCompactionDelay(Duration delay) {
            this.idleCompactionDelay = Objects.requireNonNull(delay, "idleCompactionDelay");
            return this;
        }

        public Builder compactionBytesPerSecond(long bytesPerSecond) {
            this.compactionBytesPerSecond = bytesPerSecond;
            return this;
        }

        public Builder delayedWriteBytesPerSecond(long bytesPerSecond) {
            this.delayedWriteBytesPerSecond = bytesPerSecond;
            return this;
        }

        public Builder compression(Compression codec) {
            this.compression = Objects.requireNonNull(codec, "compression");
            return this;
        }

        public Builder blockCacheBytes(long bytes) {
            this.blockCacheBytes = bytes;
            return this;
        }

        public Builder timestampToMillis(LongUnaryOperator mapping) {
            this.timestampToMillis = Objects.requireNonNull(mapping, "timestampToMillis");
            return this;
        }

        public Builder clock(LongSupplier millis) {
            this.clock = Objects.requireNonNull(millis, "clock");
            return this;
        }

        public Builder storage(Storage storage) {
            this.storage = Objects.requireNonNull(storage, "storage");
            return this;
        }

        /** See {@link DaoOptions#minFreeBytes()}. */
        public Builder minFreeBytes(long bytes) {
            this.minFreeBytes = bytes;
            return this;
        }

        /** See {@link DaoOptions#diskFailurePolicy()}. */
        public Builder diskFailurePolicy(DiskFailurePolicy policy) {
            this.diskFailurePolicy = Objects.requireNonNull(policy, "diskFailurePolicy");
            return this;
        }

        /** See {@link DaoOptions#scrubPeriod()}. */
        public Builder scrubPeriod(Duration period) {
            this.scrubPeriod = Objects.requireNonNull(period, "scrubPeriod");
            return this;
        }

        /** See {@link DaoOptions#backgroundBudget()}; null for none. */
        public Builder backgroundBudget(BackgroundBudget budget) {
            this.backgroundBudget = budget;
            return this;
        }

        public DaoOptions build() {
            require(flushThresholdBytes >= 1024, "flushThresholdBytes must be >= 1024, got " + flushThresholdBytes);
            require(flushThresholdSpread >= 0 && flushThresholdSpread <= 0.5,
                    "flushThresholdSpread must be in [0, 0.5], got " + flushThresholdSpread);
            require(groupCommitIntervalMillis >= 1 && groupCommitIntervalMillis <= 10_000,
                    "groupCommitIntervalMillis must be in [1, 10000], got " + groupCommitIntervalMillis);
            require(bloomBitsPerKey >= 0 && bloomBitsPerKey <= 64,
                    "bloomBitsPerKey must be in [0, 64], got " + bloomBitsPerKey);
            require(blockSizeBytes >= 256 && blockSizeBytes <= (1 << 20),
                    "blockSizeBytes must be in [256, 1048576], got " + blockSizeBytes);
            require(compactionTrigger >= 2, "compactionTrigger must be >= 2, got " + compactionTrigger);
            require(maxFrozenMemtables >= 1, "maxFrozenMemtables must be >= 1, got " + maxFrozenMemtables);
            require(targetTableBytes >= 4096, "targetTableBytes must be >= 4096, got " + targetTableBytes);
            require(levelBaseBytes == 0 || levelBaseBytes >= targetTableBytes,
                    "levelBaseBytes must be 0 (the default: " + DEFAULT_LEVEL_BASE_MEMTABLES
                            + " memtables) or >= targetTableBytes (" + targetTableBytes + "), got " + levelBaseBytes);
            require(delayedWriteBytesPerSecond > 0,
                    "delayedWriteBytesPerSecond must be > 0, got " + delayedWriteBytesPerSecond);
            require(compactionBytesPerSecond >= 0,
                    "compactionBytesPerSecond must be >= 0 (0: no limit), got " + compactionBytesPerSecond);
            require(blockCacheBytes >= 0, "blockCacheBytes must be >= 0 (0: no cache), got " + blockCacheBytes);
            require(!idleCompactionDelay.isNegative(),
                    "idleCompactionDelay must not be negative (0: off), got " + idleCompactionDelay);
            require(minFreeBytes >= 0, "minFreeBytes must be >= 0, got " + minFreeBytes);
            require(!scrubPeriod.isNegative(), "scrubPeriod must not be negative (0: off), got " + scrubPeriod);
            require(!tombstoneGrace.isNegative(), "tombstoneGrace must not be negative, got " + tombstoneGrace);
            return new DaoOptions(this);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
