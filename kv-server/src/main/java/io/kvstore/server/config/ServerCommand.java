package io.kvstore.server.config;

import io.kvstore.client.TlsEngine;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.ReadRepair;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.internal.membership.KeyStreamer;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskFailurePolicy;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.PropertiesDefaultProvider;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine;

/**
 * The standalone server's command line: each option sets one setting of a {@link KvServerConfig.Builder}
 * or of the options it is made of ({@link io.kvstore.core.DaoOptions}, {@link io.kvstore.cluster.ReplicationOptions},
 * {@link NetworkOptions}, {@link SecurityOptions}), and their {@code build()} alone decides what is valid;
 * its refusal is a usage error like a malformed number or an unknown option, and so is a secret or TLS
 * file the node could not use ({@link SecurityOptions#check()}).
 *
 * <p>Adding an option takes its field, setter and check in the builder it belongs to, then one method
 * here: annotated with {@link Option}, its long name as the flag, the options class's default constant
 * as {@code defaultValue} (none when the default depends on other options: say it in the description),
 * and a body that calls the setter. The same name without {@code --} becomes its key in a
 * {@code --config} file, {@code --help} lists it with its default, and docs/OPERATIONS.md must list it
 * too (a test compares the two).
 */
@Command(name = "kv-server", showDefaultValues = true, usageHelpWidth = 110,
        customSynopsis = "java -jar kv-server/target/kv-server.jar [OPTIONS]",
        description = {"Serves one node of a kvstore cluster over HTTP; without options, a single node on"
                + " port 8080 that keeps its files in the directory 'data'.", ""},
        footer = {"", "A --config file holds key=value lines (Java properties), the key being an option's name without"
                + " '--', e.g. port=8081 or cluster=http://10.0.0.1:8080,http://10.0.0.2:8080; options on the"
                + " command line override it."})
public final class ServerCommand {
    private final KvServerConfig.Builder config = KvServerConfig.builder();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    private boolean help;

    @Option(names = "--config", paramLabel = "FILE",
            description = "a properties file of options (see below); the command line overrides it")
    private Path configFile;

    @Option(names = "--port", paramLabel = "N", defaultValue = "" + KvServerConfig.DEFAULT_PORT,
            description = "port to listen on; 0 picks a free one (single node only)")
    void port(int port) {
        config.port(port);
    }

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = KvServerConfig.DEFAULT_DATA_DIRECTORY,
            description = "where the store keeps its files")
    void dataDirectory(Path directory) {
        config.dataDirectory(directory);
    }

    @Option(names = "--cluster", paramLabel = "URL,URL,...",
            description = "every node of the cluster, this one included, in the same order on every node"
                    + " (default: this node alone)")
    void cluster(String nodes) {
        List<String> urls = new ArrayList<>();
        for (String url : nodes.split(",")) {
            urls.add(url.trim());
        }
        config.cluster(urls);
    }

    @Option(names = "--self", paramLabel = "URL",
            description = "this node's URL as written in --cluster (default: http://localhost:<port>, https with --tls-cert)")
    void self(String url) {
        config.self(url.trim());
    }

    @Option(names = "--partitioner", paramLabel = "NAME", defaultValue = KvServerConfig.DEFAULT_PARTITIONER,
            description = "ring | rendezvous | modn | jump | maglev")
    void partitioner(String name) {
        config.partitioner(name);
    }

    @Option(names = "--vnodes", paramLabel = "N",
            description = "tokens per node of the ring (default: " + Partitioners.DEFAULT_VIRTUAL_NODES + " random, "
                    + TokenAllocator.DEFAULT_TOKENS + " allocated)")
    void virtualNodes(int count) {
        config.virtualNodes(count);
    }

    @Option(names = "--ring-tokens", paramLabel = "CHOICE",
            description = "random | allocated: where a new cluster's ring tokens come from: hashes of the node URLs,"
                    + " or chosen as each node joins to even out the nodes' shares of replicas (kept in the cluster map)"
                    + " (default: allocated with the ring partitioner)")
    void ringTokens(RingTokens choice) {
        config.ringTokens(choice);
    }

    @Option(names = "--engine", paramLabel = "NAME", defaultValue = "lsm", description = "lsm | rocksdb")
    void engine(Engine engine) {
        config.engine(engine);
    }

    @Option(names = "--sync", paramLabel = "POLICY", defaultValue = "none",
            description = "none | group | every: when the write-ahead log reaches the disk; none survives a"
                    + " killed process, not a power cut")
    void syncPolicy(SyncPolicy policy) {
        config.store(store -> store.syncPolicy(policy));
    }

    @Option(names = "--flush-threshold", paramLabel = "BYTES",
            description = "memtable size before it is written to a table"
                    + " (default: " + DaoOptions.DEFAULT_FLUSH_THRESHOLD_BYTES + ", or a sixteenth of the heap if that is less)")
    void flushThresholdBytes(long bytes) {
        config.store(store -> store.flushThresholdBytes(bytes));
    }

    @Option(names = "--min-free-bytes", paramLabel = "BYTES", defaultValue = "" + DaoOptions.DEFAULT_MIN_FREE_BYTES,
            description = "free space on the data directory's disk below which writes are refused with 507 (reads go on,"
                    + " writes resume once space returns); 0: no floor")
    void minFreeBytes(long bytes) {
        config.store(store -> store.minFreeBytes(bytes));
    }

    @Option(names = "--scrub-period-s", paramLabel = "N", defaultValue = "" + DaoOptions.DEFAULT_SCRUB_PERIOD_SECONDS,
            description = "seconds over which a background scrub reads every table and checks its checksums, once"
                    + " per period; a damaged table is quarantined and its keys refused until repaired; 0 = only on"
                    + " POST /v0/admin/scrub")
    void scrubPeriodSeconds(long seconds) {
        config.store(store -> store.scrubPeriod(Duration.ofSeconds(seconds)));
    }

    @Option(names = "--disk-failure-policy", paramLabel = "POLICY", defaultValue = "keep-serving",
            description = "keep-serving | stop: on a damaged table or a failed write, refuse only what is lost (the"
                    + " table's keys; writes after a failed fsync), or stop serving every request until restarted")
    void diskFailurePolicy(DiskFailurePolicy policy) {
        config.store(store -> store.diskFailurePolicy(policy));
    }

    @Option(names = "--flush-threshold-spread", paramLabel = "FRACTION",
            description = "0 to 0.5: each memtable is written to a table at a size drawn between"
                    + " (1 - FRACTION) times the flush threshold and the threshold, so that replicas flush and compact apart"
                    + " (default: " + KvServerConfig.DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD + " in a cluster, 0 for a lone node)")
    void flushThresholdSpread(double spread) {
        config.flushThresholdSpread(spread);
    }

    @Option(names = "--compression", paramLabel = "CODEC", defaultValue = "lz4",
            description = "lz4 | zstd | none: how new tables' data blocks are compressed; tables written under"
                    + " another setting stay readable")
    void compression(Compression codec) {
        config.store(store -> store.compression(codec));
    }

    @Option(names = "--block-cache-bytes", paramLabel = "BYTES",
            description = "heap bytes that decompressed blocks of compressed tables may hold, so that reads of"
                    + " a block held there do not decompress it again; 0 = no cache (default: an eighth of the heap)")
    void blockCacheBytes(long bytes) {
        config.store(store -> store.blockCacheBytes(bytes));
    }

    @Option(names = "--compaction-bytes-per-s", paramLabel = "N",
            defaultValue = "" + KvServerConfig.DEFAULT_COMPACTION_BYTES_PER_SECOND,
            description = "bytes per second compactions write, at most, while level 0 keeps up (beyond twice the"
                    + " compaction trigger they run unlimited); 0 = no limit; flushes are never limited")
    void compactionBytesPerSecond(long bytes) {
        config.store(store -> store.compactionBytesPerSecond(bytes));
    }

    @Option(names = "--background-budget", paramLabel = "MODE", defaultValue = "adaptive",
            description = "adaptive | fixed: adaptive shares one budget among compactions, streams, hint replay and repair"
                    + " scans, lowered within a second when requests slow down or queue and raised again when they are"
                    + " calm, never above each one's own rate; fixed runs each at its own rate")
    void backgroundBudget(BackgroundBudgetMode mode) {
        config.backgroundBudget(mode);
    }

    @Option(names = "--background-budget-min-bytes-per-s", paramLabel = "N",
            defaultValue = "" + KvServerConfig.DEFAULT_BACKGROUND_BUDGET_MIN_BYTES_PER_SECOND,
            description = "least bytes per second an adaptive background budget keeps however busy requests are, so"
                    + " that background work always progresses")
    void backgroundBudgetMinBytesPerSecond(long bytes) {
        config.backgroundBudgetMinBytesPerSecond(bytes);
    }

    @Option(names = "--compaction-style", paramLabel = "STYLE", defaultValue = "leveled",
            description = "leveled | tiered: leveled keeps levels of non-overlapping tables (little space for old"
                    + " versions, level 0 held back by slowing writers); size-tiered merges runs of similar-sized"
                    + " tables (no writer slowdown, old versions wait in large tables)")
    void compactionStyle(CompactionStyle style) {
        config.store(store -> store.compactionStyle(style));
    }

    @Option(names = "--max-key-bytes", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_MAX_KEY_BYTES,
            description = "longest id after percent-decoding, at most " + NetworkOptions.LARGEST_MAX_KEY_BYTES)
    void maxKeyBytes(int bytes) {
        config.network(network -> network.maxKeyBytes(bytes));
    }

    @Option(names = "--max-body-bytes", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_MAX_BODY_BYTES,
            description = "largest request body; larger gets 413")
    void maxBodyBytes(int bytes) {
        config.network(network -> network.maxBodyBytes(bytes));
    }

    @Option(names = "--max-in-flight", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_MAX_IN_FLIGHT,
            description = "requests in progress before 503 + Retry-After")
    void maxInFlight(int requests) {
        config.network(network -> network.maxInFlight(requests));
    }

    @Option(names = "--max-buffered-bytes", paramLabel = "N",
            description = "request body bytes held at once over all requests; beyond: 503"
                    + " (default: an eighth of the heap, at least --max-body-bytes)")
    void maxBufferedBodyBytes(long bytes) {
        config.network(network -> network.maxBufferedBodyBytes(bytes));
    }

    @Option(names = "--replica-timeout-ms", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_REPLICA_TIMEOUT_MILLIS,
            description = "how long a request waits for ack replicas before 504")
    void replicaTimeoutMillis(long millis) {
        config.network(network -> network.replicaTimeout(Duration.ofMillis(millis)));
    }

    @Option(names = "--drain-grace-ms", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_DRAIN_GRACE_MILLIS,
            description = "on SIGTERM, after telling its peers, a node of a cluster serves this long more, asking"
                    + " clients to reconnect elsewhere (Connection: close), before it stops listening; 0: none")
    void drainGraceMillis(long millis) {
        config.network(network -> network.drainGrace(Duration.ofMillis(millis)));
    }

    @Option(names = "--idle-timeout-s", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_IDLE_TIMEOUT_SECONDS,
            description = "idle connections are closed after this; connections to peers after half of it,"
                    + " so give every node of a cluster the same")
    void idleTimeoutSeconds(long seconds) {
        config.network(network -> network.idleTimeout(Duration.ofSeconds(seconds)));
    }

    @Option(names = "--request-timeout-s", paramLabel = "N", defaultValue = "" + NetworkOptions.DEFAULT_REQUEST_TIMEOUT_SECONDS,
            description = "connections that take longer than this to send a request's body, or than this and the"
                    + " idle timeout to send its headers, however steadily the bytes trickle in, are closed")
    void requestTimeoutSeconds(long seconds) {
        config.network(network -> network.requestTimeout(Duration.ofSeconds(seconds)));
    }

    @Option(names = "--anti-entropy-interval-s", paramLabel = "N",
            defaultValue = "" + KvServerConfig.DEFAULT_ANTI_ENTROPY_INTERVAL_SECONDS,
            description = "seconds from the end of one anti-entropy exchange with every peer to the next; 0 = only"
                    + " on POST /v0/admin/repair")
    void antiEntropyIntervalSeconds(long seconds) {
        config.antiEntropyInterval(Duration.ofSeconds(seconds));
    }

    @Option(names = "--repair-scan-bytes-per-s", paramLabel = "N",
            defaultValue = "" + KvServerConfig.DEFAULT_REPAIR_SCAN_BYTES_PER_SECOND,
            description = "bytes per second all of this node's repair scans read together, at most")
    void repairScanBytesPerSecond(long bytes) {
        config.repairScanBytesPerSecond(bytes);
    }

    @Option(names = "--join", paramLabel = "URL",
            description = "join the running cluster that URL (any member) belongs to; the replication factor and the"
                    + " partitioner come from its map (ignored once this node is in a map kept in --data-dir)")
    void join(String member) {
        config.join(member.trim());
    }

    @Option(names = "--stream-bytes-per-s", paramLabel = "N",
            defaultValue = "" + KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND,
            description = "pace of the scans that stream keys to the nodes that gain them when the cluster grows or shrinks")
    void streamBytesPerSecond(long bytes) {
        config.streamBytesPerSecond(bytes);
    }

    @Option(names = "--stream-batch-bytes", paramLabel = "N", defaultValue = "" + KeyStreamer.MAX_BATCH_BYTES,
            description = "bytes of entries a stream gathers for a node before it sends them (65536 to 4194304); "
                    + "the node that gains them writes each batch as a table")
    void streamBatchBytes(int bytes) {
        config.streamBatchBytes(bytes);
    }

    @Option(names = "--event-loops", paramLabel = "N", description = "HTTP event loops (default: one per core)")
    void eventLoops(int count) {
        config.network(network -> network.eventLoops(count));
    }

    @Option(names = "--storage-threads", paramLabel = "N",
            description = "threads for point reads and writes that may block (reads of tables not in memory,"
                    + " memtable switches, synced writes); 0 runs all on the event loops (default: one per core"
                    + " with --sync none, else " + KvServerConfig.DEFAULT_SYNCING_STORAGE_THREADS + ")")
    void storageThreads(int count) {
        config.storageThreads(count);
    }

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "native",
            description = "native | nio: native epoll where it loads (Linux), else java.nio")
    void transport(Transport transport) {
        config.network(network -> network.nativeTransport(transport == Transport.NATIVE));
    }

    @Option(names = "--background-priority", paramLabel = "P", defaultValue = "idle",
            description = "CPU priority of the background threads (flushes, compactions, streams to a joining"
                    + " node, cleanups, repair scans), so that they yield the cores to requests: idle (Linux's SCHED_IDLE) or a nice value 0-19, 0 the normal priority")
    void backgroundPriority(BackgroundPriority priority) {
        config.store(store -> store.backgroundPriority(priority));
    }

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "RF: the default from, and how many replicas of each key repair keeps in sync"
                    + " (default: the number of nodes in --cluster)")
    void replicationFactor(int replicationFactor) {
        config.replication(replication -> replication.replicationFactor(replicationFactor));
    }

    @Option(names = "--hints", paramLabel = "on|off", defaultValue = "on",
            description = "hinted handoff: writes a replica did not acknowledge are kept on this node and replayed"
                    + " when it is back")
    void hints(Switch hints) {
        config.replication(replication -> replication.hints(hints == Switch.ON));
    }

    @Option(names = "--hint-window-s", paramLabel = "N", defaultValue = "" + ReplicationOptions.DEFAULT_HINT_WINDOW_SECONDS,
            description = "a node down longer than this gets no new hints (anti-entropy covers it)")
    void hintWindowSeconds(long seconds) {
        config.replication(replication -> replication.hintWindow(Duration.ofSeconds(seconds)));
    }

    @Option(names = "--hint-replay-bytes-per-s", paramLabel = "N",
            defaultValue = "" + ReplicationOptions.DEFAULT_HINT_REPLAY_BYTES_PER_SECOND,
            description = "the most hints are replayed at to a node that is back; below it, replay follows the node's answers")
    void hintReplayBytesPerSecond(long bytes) {
        config.replication(replication -> replication.hintReplayBytesPerSecond(bytes));
    }

    @Option(names = "--max-hint-bytes", paramLabel = "N", defaultValue = "" + ReplicationOptions.DEFAULT_MAX_HINT_BYTES,
            description = "hints kept for one node at most; past it new hints are dropped and counted")
    void maxHintBytes(long bytes) {
        config.replication(replication -> replication.maxHintBytes(bytes));
    }

    @Option(names = "--read-repair", paramLabel = "MODE", defaultValue = "blocking",
            description = "blocking | async | off: what a GET does when its replicas disagree; blocking answers once"
                    + " the newest version is on ack replicas (monotonic quorum reads)")
    void readRepair(ReadRepair mode) {
        config.replication(replication -> replication.readRepair(mode));
    }

    @Option(names = "--tombstone-grace-s", paramLabel = "N", defaultValue = "" + ReplicationOptions.DEFAULT_TOMBSTONE_GRACE_SECONDS,
            description = "compaction keeps a tombstone at least this long, so that repair spreads it to every"
                    + " replica first (a replica down for longer may bring a deleted key back); hints older than"
                    + " this are dropped")
    void tombstoneGraceSeconds(long seconds) {
        config.replication(replication -> replication.tombstoneGrace(Duration.ofSeconds(seconds)));
    }

    @Option(names = "--batch-replica-requests", paramLabel = "on|off", defaultValue = "on",
            description = "send the reads and writes made for one peer in one round of an event loop's work as one request")
    void batchReplicaRequests(Switch batch) {
        config.network(network -> network.batchReplicaRequests(batch == Switch.ON));
    }

    @Option(names = "--metrics", paramLabel = "on|off", defaultValue = "on",
            description = "keep metrics and serve them at GET /metrics in the Prometheus text format")
    void metrics(Switch metrics) {
        config.metrics(metrics == Switch.ON);
    }

    /** A feature turned on or off, by its command-line name. */
    enum Switch {
        ON, OFF
    }
    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "the secret every node shares (one line; two while rotating: the first is used, both"
                    + " accepted); internal and admin requests are signed with it. Without it a cluster's internal"
                    + " routes are open")
    void clusterSecretFile(Path file) {
        config.security(security -> security.clusterSecretFile(file));
    }

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "a token (one or two lines) operators send as 'Authorization: Bearer <token>' to admin"
                    + " routes; with neither it nor a cluster secret, admin routes answer loopback only")
    void adminTokenFile(Path file) {
        config.security(security -> security.adminTokenFile(file));
    }

    @Option(names = "--client-token-file", paramLabel = "FILE",
            description = "a token (one or two lines) clients must send as 'Authorization: Bearer <token>'"
                    + " (default: client routes are open)")
    void clientTokenFile(Path file) {
        config.security(security -> security.clientTokenFile(file));
    }

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "PEM certificate (chain) of this node: TLS on its port and to its peers; node URLs are then"
                    + " https://")
    void tlsCertificate(Path file) {
        tlsCertificate = file;
    }

    @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key of --tls-cert")
    void tlsKey(Path file) {
        tlsKey = file;
    }

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "PEM CA that issued the nodes' certificates: peers are verified against it, and internal"
                    + " routes need a client certificate it issued (mutual TLS)")
    void tlsCa(Path file) {
        config.security(security -> security.tlsCa(file));
    }

    @Option(names = "--tls-engine", paramLabel = "jdk|openssl", defaultValue = "openssl",
            description = "TLS implementation of the port and of the connections to peers: openssl (BoringSSL,"
                    + " cheaper handshakes; the JDK's engine, with a warning, where its native library does not load)"
                    + " or jdk")
    void tlsEngine(TlsEngine engine) {
        config.security(security -> security.tlsEngine(engine));
    }

    private Path tlsCertificate;
    private Path tlsKey;

    /** The event loops' transport, by its command-line name. */
    enum Transport {
        NATIVE, NIO
    }

    /**
     * The configuration {@code args} describe, or {@code null} when they ask for help.
     *
     * @throws ParameterException for anything wrong in the arguments, the {@code --config} file or
     *     their combination, with a message that names the option
     */
    public static KvServerConfig parse(String... args) {
        CommandLine commandLine = commandLine();
        ParseResult result = commandLine.parseArgs(args);
        if (result.isUsageHelpRequested()) {
            return null;
        }
        Path file = commandLine.<ServerCommand>getCommand().configFile;
        if (file != null) {
            commandLine = commandLine();
            commandLine.setDefaultValueProvider(new PropertiesDefaultProvider(readConfigFile(commandLine, file)));
            commandLine.parseArgs(args);
        }
        ParseResult parsed = commandLine.getParseResult();
        try {
            ServerCommand command = commandLine.getCommand();
            KvServerConfig config = command.config.security(security -> security.tls(command.tlsCertificate, command.tlsKey))
                    .placementDefaulted(!parsed.hasMatchedOption("--partitioner"), !parsed.hasMatchedOption("--vnodes"),
                            !parsed.hasMatchedOption("--ring-tokens"))
                    .build();
            // A file the node could not use is a usage error, reported before the node starts.
            config.security().check();
            return config;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, e.getMessage(), e);
        }
    }

    /**
     * {@link #parse}, with its errors and a request for help as {@link IllegalArgumentException}s: here, so that
     * {@link KvServerConfig#fromCommandLine} loads picocli only when called.
     */
    static KvServerConfig parseConfiguration(String... args) {
        KvServerConfig config;
        try {
            config = parse(args);
        } catch (ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (config == null) {
            throw new IllegalArgumentException("--help describes no configuration");
        }
        return config;
    }

    /** The generated {@code --help} text. */
    public static String usage() {
        return commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    /** Every option {@code --help} lists. */
    public static List<OptionSpec> options() {
        return commandLine().getCommandSpec().options();
    }

    private static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new ServerCommand());
        commandLine.registerConverter(Engine.class, converter(Engine::fromName));
        commandLine.registerConverter(SyncPolicy.class, converter(ServerCommand::syncPolicy));
        commandLine.registerConverter(BackgroundPriority.class, converter(BackgroundPriority::parse));
        commandLine.registerConverter(CompactionStyle.class, converter(ServerCommand::compactionStyle));
        commandLine.registerConverter(Compression.class, converter(ServerCommand::compression));
        commandLine.registerConverter(ReadRepair.class, converter(ReadRepair::fromId));
        commandLine.registerConverter(BackgroundBudgetMode.class, converter(BackgroundBudgetMode::fromId));
        commandLine.registerConverter(TlsEngine.class, converter(TlsEngine::fromName));
        commandLine.registerConverter(RingTokens.class, converter(RingTokens::parse));
        commandLine.registerConverter(DiskFailurePolicy.class, converter(ServerCommand::diskFailurePolicy));
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        return commandLine;
    }

    private static Properties readConfigFile(CommandLine commandLine, Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(commandLine, "cannot read --config file " + file + ": " + e, e);
        }
        Set<String> keys = new TreeSet<>();
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.arity().max() > 0 && !option.longestName().equals("--config")) {
                keys.add(option.longestName().substring(2));
            }
        }
        for (String key : properties.stringPropertyNames()) {
            if (!keys.contains(key)) {
                throw new ParameterException(commandLine, "unknown key '" + key + "' in --config file " + file
                        + "; keys are option names without '--': " + keys);
            }
        }
        return properties;
    }

    private static <T> ITypeConverter<T> converter(Function<String, T> parse) {
        return value -> {
            try {
                return parse.apply(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        };
    }

    private static Compression compression(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "lz4": return Compression.LZ4;
            case "zstd": return Compression.ZSTD;
            case "none": return Compression.NONE;
            default: throw new IllegalArgumentException("must be lz4, zstd or none, got '" + name + "'");
        }
    }

    private static DiskFailurePolicy diskFailurePolicy(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "keep-serving": return DiskFailurePolicy.KEEP_SERVING;
            case "stop": return DiskFailurePolicy.STOP;
            default: throw new IllegalArgumentException("must be keep-serving or stop, got '" + name + "'");
        }
    }

    private static CompactionStyle compactionStyle(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "tiered": return CompactionStyle.SIZE_TIERED;
            case "leveled": return CompactionStyle.LEVELED;
            default: throw new IllegalArgumentException("must be tiered or leveled, got '" + name + "'");
        }
    }

    private static SyncPolicy syncPolicy(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "none": return SyncPolicy.NONE;
            case "group": return SyncPolicy.GROUP_COMMIT;
            case "every": return SyncPolicy.EVERY_WRITE;
            default: throw new IllegalArgumentException("must be none, group or every, got '" + name + "'");
        }
    }
}
