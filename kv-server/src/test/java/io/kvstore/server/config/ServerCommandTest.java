package io.kvstore.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskFailurePolicy;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParameterException;

class ServerCommandTest {
    @TempDir
    Path dir;

    @Test
    void noOptionsGiveTheBuildersDefaults() {
        KvServerConfig parsed = ServerCommand.parse();
        KvServerConfig built = KvServerConfig.builder().build();
        assertEquals(8080, parsed.port());
        assertEquals("http://localhost:8080", parsed.self());
        assertEquals(List.of("http://localhost:8080"), parsed.cluster());
        assertEquals(Path.of("data"), parsed.dataDirectory());
        assertEquals(built.self(), parsed.self());
        assertEquals(built.cluster(), parsed.cluster());
        assertEquals(built.partitioner(), parsed.partitioner());
        assertEquals(built.virtualNodes(), parsed.virtualNodes());
        assertEquals(built.engine(), parsed.engine());
        assertEquals(built.storeOptions().toString(), parsed.storeOptions().toString());
        assertEquals(built.network().maxKeyBytes(), parsed.network().maxKeyBytes());
        assertEquals(built.network().maxBodyBytes(), parsed.network().maxBodyBytes());
        assertEquals(built.network().maxInFlight(), parsed.network().maxInFlight());
        assertEquals(built.network().maxBufferedBodyBytes(), parsed.network().maxBufferedBodyBytes());
        assertEquals(built.network().replicaTimeout(), parsed.network().replicaTimeout());
        assertEquals(built.network().idleTimeout(), parsed.network().idleTimeout());
        assertEquals(built.network().requestTimeout(), parsed.network().requestTimeout());
        assertEquals(built.network().eventLoops(), parsed.network().eventLoops());
        assertEquals(built.storageThreads(), parsed.storageThreads());
        assertEquals(built.network().nativeTransport(), parsed.network().nativeTransport());
        assertEquals(built.security().tlsEngine(), parsed.security().tlsEngine());
        assertEquals(built.antiEntropyInterval(), parsed.antiEntropyInterval());
        assertEquals(Duration.ofHours(1), parsed.antiEntropyInterval());
        assertEquals(64L << 20, parsed.repairScanBytesPerSecond());
        assertEquals(Duration.ofDays(10), parsed.storeOptions().tombstoneGrace());
        assertEquals(built.metrics(), parsed.metrics());
        assertEquals(Compression.LZ4, parsed.storeOptions().compression());
        assertEquals(20L << 20, parsed.storeOptions().compactionBytesPerSecond());
        assertEquals(CompactionStyle.LEVELED, parsed.storeOptions().compactionStyle());
    }

    @Test
    void everyFlagSetsItsField() {
        KvServerConfig c = ServerCommand.parse("--port", "9001", "--data-dir", "/tmp/x",
                "--cluster", "http://h1:9001, http://h2:9002", "--self", "http://h1:9001",
                "--partitioner", "maglev", "--vnodes", "16", "--engine", "rocksdb", "--sync", "group",
                "--flush-threshold", "1048576", "--flush-threshold-spread", "0.3", "--max-key-bytes", "100",
                "--max-body-bytes", "1000", "--max-in-flight", "10", "--max-buffered-bytes", "5000", "--replica-timeout-ms", "300",
                "--idle-timeout-s", "9", "--request-timeout-s", "7", "--event-loops", "3", "--storage-threads", "0",
                "--transport", "nio", "--background-priority", "idle", "--anti-entropy-interval-s", "0",
                "--tombstone-grace-s", "60", "--hint-window-s", "30", "--metrics", "off",
                "--repair-scan-bytes-per-s", "1000", "--compression", "zstd", "--compaction-bytes-per-s", "4096",
                "--compaction-style", "tiered", "--block-cache-bytes", "1048576");
        assertEquals(9001, c.port());
        assertEquals(Path.of("/tmp/x"), c.dataDirectory());
        assertEquals(List.of("http://h1:9001", "http://h2:9002"), c.cluster());
        assertEquals("http://h1:9001", c.self());
        assertEquals("maglev", c.partitioner());
        assertEquals(16, c.virtualNodes());
        assertEquals(Engine.ROCKSDB, c.engine());
        assertEquals(SyncPolicy.GROUP_COMMIT, c.storeOptions().syncPolicy());
        assertEquals(1048576, c.storeOptions().flushThresholdBytes());
        assertEquals(0.3, c.storeOptions().flushThresholdSpread());
        assertEquals(100, c.network().maxKeyBytes());
        assertEquals(1000, c.network().maxBodyBytes());
        assertEquals(10, c.network().maxInFlight());
        assertEquals(5000, c.network().maxBufferedBodyBytes());
        assertEquals(Duration.ofMillis(300), c.network().replicaTimeout());
        assertEquals(Duration.ofSeconds(9), c.network().idleTimeout());
        assertEquals(Duration.ofSeconds(7), c.network().requestTimeout());
        assertEquals(3, c.network().eventLoops());
        assertEquals(0, c.storageThreads());
        assertFalse(c.network().nativeTransport());
        assertEquals(BackgroundPriority.IDLE, c.storeOptions().backgroundPriority());
        assertEquals(Duration.ZERO, c.antiEntropyInterval());
        assertEquals(Duration.ofSeconds(60), c.storeOptions().tombstoneGrace());
        assertEquals(Duration.ofSeconds(30), c.replication().hintWindow());
        assertEquals(1000, c.repairScanBytesPerSecond());
        assertFalse(c.metrics());
        assertEquals(Compression.ZSTD, c.storeOptions().compression());
        assertEquals(4096, c.storeOptions().compactionBytesPerSecond());
        assertEquals(CompactionStyle.SIZE_TIERED, c.storeOptions().compactionStyle());
        assertEquals(1048576, c.storeOptions().blockCacheBytes());
        assertEquals(0, ServerCommand.parse("--block-cache-bytes", "0").storeOptions().blockCacheBytes());
        assertEquals(DaoOptions.defaultBlockCacheBytes(), ServerCommand.parse().storeOptions().blockCacheBytes());
        assertEquals(Compression.NONE, ServerCommand.parse("--compression", "None").storeOptions().compression());
        assertEquals(0, ServerCommand.parse("--compaction-bytes-per-s", "0").storeOptions().compactionBytesPerSecond());
        assertEquals(BackgroundBudgetMode.ADAPTIVE, ServerCommand.parse().backgroundBudget());
        assertEquals(BackgroundBudgetMode.FIXED, ServerCommand.parse("--background-budget", "fixed").backgroundBudget());
        assertEquals(KvServerConfig.DEFAULT_BACKGROUND_BUDGET_MIN_BYTES_PER_SECOND,
                ServerCommand.parse().backgroundBudgetMinBytesPerSecond());
        assertEquals(1 << 20, ServerCommand.parse("--background-budget-min-bytes-per-s", "1048576")
                .backgroundBudgetMinBytesPerSecond());
        assertEquals(CompactionStyle.LEVELED,
                ServerCommand.parse("--compaction-style", "Leveled").storeOptions().compactionStyle());
    }

    @Test
    void theDiskFailureFlagsSetTheStoreOptions() {
        assertEquals(DiskFailurePolicy.KEEP_SERVING, ServerCommand.parse().storeOptions().diskFailurePolicy());
        assertEquals(Duration.ofDays(7), ServerCommand.parse().storeOptions().scrubPeriod());
        DaoOptions options = ServerCommand.parse("--disk-failure-policy", "stop", "--scrub-period-s", "3600")
                .storeOptions();
        assertEquals(DiskFailurePolicy.STOP, options.diskFailurePolicy());
        assertEquals(Duration.ofHours(1), options.scrubPeriod());
        assertEquals(Duration.ZERO, ServerCommand.parse("--scrub-period-s", "0").storeOptions().scrubPeriod());
        assertEquals(DiskFailurePolicy.KEEP_SERVING,
                ServerCommand.parse("--disk-failure-policy", "keep-serving").storeOptions().diskFailurePolicy());
        assertUsageError("Invalid value for option '--disk-failure-policy': must be keep-serving or stop, got 'ignore'",
                "--disk-failure-policy", "ignore");
        assertUsageError("scrubPeriod must not be negative (0: off), got PT-1S", "--scrub-period-s", "-1");
    }

    @Test
    void namesAreCaseInsensitiveWhereTheyWereBefore() {
        assertTrue(ServerCommand.parse("--transport", "NATIVE").network().nativeTransport());
        assertEquals(io.kvstore.client.TlsEngine.JDK, ServerCommand.parse("--tls-engine", "JDK").security().tlsEngine());
        assertTrue(ServerCommand.parse("--metrics", "On").metrics());
        assertEquals(SyncPolicy.EVERY_WRITE, ServerCommand.parse("--sync", "Every").storeOptions().syncPolicy());
        assertEquals(BackgroundPriority.NORMAL, ServerCommand.parse("--background-priority", "0").storeOptions().backgroundPriority());
        assertEquals(BackgroundPriority.nice(19), ServerCommand.parse("--background-priority", "19").storeOptions().backgroundPriority());
    }

    @Test
    void helpIsGeneratedWithEveryOptionAndItsDefault() {
        assertNull(ServerCommand.parse("--help"));
        assertNull(ServerCommand.parse("-h"));
        String usage = ServerCommand.usage();
        for (var option : ServerCommand.options()) {
            assertTrue(usage.contains(option.longestName()), option.longestName());
        }
        assertTrue(usage.contains("Default: 8080"), usage);
        assertTrue(usage.contains("default: " + DaoOptions.DEFAULT_FLUSH_THRESHOLD_BYTES + ", or a sixteenth"), usage);
    }

    @Test
    void ringTokensAreAllocatedByDefaultWithTheRingAndChooseTheDefaultTokenCount() {
        KvServerConfig defaulted = ServerCommand.parse();
        assertEquals(RingTokens.ALLOCATED, defaulted.ringTokens());
        assertEquals(TokenAllocator.DEFAULT_TOKENS, defaulted.virtualNodes());
        assertFalse(defaulted.ringTokensGiven());
        assertFalse(defaulted.virtualNodesGiven());
        assertEquals(KvServerConfig.builder().build().ringTokens(), defaulted.ringTokens());
        KvServerConfig random = ServerCommand.parse("--ring-tokens", "random");
        assertEquals(RingTokens.RANDOM, random.ringTokens());
        assertEquals(Partitioners.DEFAULT_VIRTUAL_NODES, random.virtualNodes());
        assertTrue(random.ringTokensGiven());
        KvServerConfig allocated = ServerCommand.parse("--ring-tokens", "allocated");
        assertEquals(RingTokens.ALLOCATED, allocated.ringTokens());
        assertEquals(TokenAllocator.DEFAULT_TOKENS, allocated.virtualNodes());
        assertTrue(allocated.ringTokensGiven());
        assertEquals(32, ServerCommand.parse("--vnodes", "32").virtualNodes());
        assertEquals(32, ServerCommand.parse("--ring-tokens", "allocated", "--vnodes", "32").virtualNodes());
    }

    @Test
    void ringTokensApplyOnlyToTheRingAndAreRefusedWithAnotherPartitionerOnlyWhenGiven() {
        KvServerConfig jump = ServerCommand.parse("--partitioner", "jump");
        assertEquals(RingTokens.RANDOM, jump.ringTokens(), "no tokens to keep for a partitioner other than the ring");
        assertEquals(Partitioners.DEFAULT_VIRTUAL_NODES, jump.virtualNodes());
        assertEquals(RingTokens.RANDOM, ServerCommand.parse("--partitioner", "jump", "--ring-tokens", "random").ringTokens());
        assertEquals(RingTokens.RANDOM, KvServerConfig.builder().partitioner("maglev").build().ringTokens());
        assertUsageError("--ring-tokens allocated needs the ring partitioner, not jump",
                "--ring-tokens", "allocated", "--partitioner", "jump");
        assertUsageError("Invalid value for option '--ring-tokens': unknown ring tokens 'even'; expected random or allocated",
                "--ring-tokens", "even");
    }

    @Test
    void ringTokensFromAConfigurationFileAreDefaultsNotChoices() throws IOException {
        Path file = Files.writeString(dir.resolve("node.properties"), "ring-tokens=random\n");
        KvServerConfig config = ServerCommand.parse("--config", file.toString());
        assertEquals(RingTokens.RANDOM, config.ringTokens());
        assertEquals(Partitioners.DEFAULT_VIRTUAL_NODES, config.virtualNodes());
        assertFalse(config.ringTokensGiven());
        assertEquals(RingTokens.ALLOCATED, ServerCommand.parse("--config", file.toString(), "--ring-tokens", "allocated")
                .ringTokens());
    }

    @Test
    void nodesOfAClusterSpreadTheirFlushesByDefaultAndALoneNodeDoesNot() {
        assertEquals(0, ServerCommand.parse().storeOptions().flushThresholdSpread());
        String[] cluster = {"--cluster", "http://h1:1,http://h2:1", "--self", "http://h1:1"};
        assertEquals(KvServerConfig.DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD,
                ServerCommand.parse(cluster).storeOptions().flushThresholdSpread());
        assertEquals(KvServerConfig.DEFAULT_CLUSTER_FLUSH_THRESHOLD_SPREAD,
                ServerCommand.parse("--port", "9001", "--join", "http://h1:1").storeOptions().flushThresholdSpread());
        String[] explicit = Arrays.copyOf(cluster, cluster.length + 2);
        explicit[cluster.length] = "--flush-threshold-spread";
        explicit[cluster.length + 1] = "0";
        assertEquals(0, ServerCommand.parse(explicit).storeOptions().flushThresholdSpread());
    }

    @Test
    void badFlagsAreUsageErrorsThatNameTheProblem() {
        assertUsageError("Unknown options: '--prot'", "--prot", "1");
        assertUsageError("Missing required parameter for option '--port' (N)", "--port");
        assertUsageError("Invalid value for option '--port': 'x' is not an int", "--port", "x");
        assertUsageError("Invalid value for option '--flush-threshold': '8M' is not a long", "--flush-threshold", "8M");
        assertUsageError("port must be in [0, 65535], got 70000", "--port", "70000");
        assertUsageError("flushThresholdBytes must be >= 1024, got 100", "--flush-threshold", "100");
        assertUsageError("flushThresholdSpread must be in [0, 0.5], got 0.6", "--flush-threshold-spread", "0.6");
        assertUsageError("Invalid value for option '--flush-threshold-spread': 'a' is not a double",
                "--flush-threshold-spread", "a");
        assertUsageError("unknown partitioner 'hash'; expected one of [ring, rendezvous, modn, jump, maglev]",
                "--partitioner", "hash");
        assertUsageError("self http://h3:1 is not in the cluster [http://h1:1, http://h2:1]",
                "--cluster", "http://h1:1,http://h2:1", "--self", "http://h3:1");
        assertUsageError("duplicate node in cluster [http://h1:1, http://h1:1]", "--cluster", "http://h1:1,http://h1:1",
                "--self", "http://h1:1");
        assertUsageError("node URL must look like http://host:port, got 'h1:1'", "--cluster", "h1:1", "--self", "h1:1");
        assertUsageError("Invalid value for option '--sync': must be none, group or every, got 'always'", "--sync", "always");
        assertUsageError("Invalid value for option '--transport': expected one of [NATIVE, NIO] (case-insensitive) but was 'epol'",
                "--transport", "epol");
        assertUsageError("Invalid value for option '--tls-engine': unknown TLS engine 'boringssl' (expected jdk or openssl)",
                "--tls-engine", "boringssl");
        assertUsageError("Invalid value for option '--engine': Unknown storage engine 'leveldb'; known engines: lsm, rocksdb",
                "--engine", "leveldb");
        assertUsageError("Invalid value for option '--background-priority': background priority must be idle or a nice"
                + " value 0-19, got '20'", "--background-priority", "20");
        assertUsageError("Invalid value for option '--background-priority': background priority must be idle or a nice"
                + " value 0-19, got '-5'", "--background-priority", "-5");
        assertUsageError("max key bytes must be in [1, 8192], got 16000", "--max-key-bytes", "16000");
        assertUsageError("replica timeout must be positive", "--replica-timeout-ms", "0");
        assertUsageError("anti-entropy interval must be >= 0, got PT-1S", "--anti-entropy-interval-s", "-1");
        assertUsageError("repair scan bytes per second must be >= 1, got 0", "--repair-scan-bytes-per-s", "0");
        assertUsageError("tombstone grace must be positive, got PT-1S", "--tombstone-grace-s", "-1");
        assertUsageError("Unmatched argument at index 0: 'serve'", "serve");
        assertUsageError("Invalid value for option '--compression': must be lz4, zstd or none, got 'gzip'",
                "--compression", "gzip");
        assertUsageError("Invalid value for option '--compaction-style': must be tiered or leveled, got 'universal'",
                "--compaction-style", "universal");
        assertUsageError("Invalid value for option '--compaction-style': must be tiered or leveled, got 'size_tiered'",
                "--compaction-style", "size_tiered");
        assertUsageError("compactionBytesPerSecond must be >= 0 (0: no limit), got -1",
                "--compaction-bytes-per-s", "-1");
        assertUsageError("Invalid value for option '--background-budget': unknown background budget 'auto': expected"
                + " adaptive or fixed", "--background-budget", "auto");
        assertUsageError("background budget min bytes per second must be >= 1, got 0",
                "--background-budget-min-bytes-per-s", "0");
        assertUsageError("Invalid value for option '--compaction-bytes-per-s': '1M' is not a long",
                "--compaction-bytes-per-s", "1M");
        assertUsageError("blockCacheBytes must be >= 0 (0: no cache), got -1", "--block-cache-bytes", "-1");
    }

    @Test
    void aConfigFileSetsOptionsByTheirNamesAndTheCommandLineWins() throws IOException {
        Path file = write("port=8081\n"
                + "cluster=http://127.0.0.1:8081,http://127.0.0.1:8082\n"
                + "self=http://127.0.0.1:8081\n"
                + "sync=every\n"
                + "max-in-flight=77\n");
        KvServerConfig c = ServerCommand.parse("--config", file.toString());
        assertEquals(8081, c.port());
        assertEquals(List.of("http://127.0.0.1:8081", "http://127.0.0.1:8082"), c.cluster());
        assertEquals(SyncPolicy.EVERY_WRITE, c.storeOptions().syncPolicy());
        assertEquals(77, c.network().maxInFlight());

        KvServerConfig overridden = ServerCommand.parse("--max-in-flight", "5", "--config", file.toString());
        assertEquals(5, overridden.network().maxInFlight());
        assertEquals(8081, overridden.port());
    }

    @Test
    void aBadConfigFileIsAUsageError() throws IOException {
        Path unknown = write("port=8081\nprot=8082\n");
        String message = assertUsageError(null, "--config", unknown.toString());
        assertTrue(message.startsWith("unknown key 'prot' in --config file " + unknown), message);

        assertUsageError("unknown key 'config' in", "--config", write("config=other.properties\n").toString());
        assertUsageError("Invalid value for option '--port': 'eighty' is not an int",
                "--config", write("port=eighty\n").toString());
        assertUsageError("flushThresholdBytes must be >= 1024, got 100",
                "--config", write("flush-threshold=100\n").toString());
        Path missing = dir.resolve("missing.properties");
        assertUsageError("cannot read --config file " + missing, "--config", missing.toString());
    }

    private Path write(String properties) throws IOException {
        Path file = Files.createTempFile(dir, "server", ".properties");
        Files.writeString(file, properties, StandardCharsets.ISO_8859_1);
        return file;
    }

    /** Asserts that {@code args} are refused with a message starting with {@code expected}; returns it. */
    private static String assertUsageError(String expected, String... args) {
        String message = assertThrows(ParameterException.class, () -> ServerCommand.parse(args)).getMessage();
        if (expected != null) {
            assertTrue(message.startsWith(expected), "expected '" + expected + "', got '" + message + "'");
        }
        return message;
    }

    @Test
    void replicationFlagsSetTheReplicationOptionsAndTheStoresGrace() {
        assertEquals(KvServerConfig.builder().build().replication().toString(), ServerCommand.parse().replication().toString(),
                "no flags give the builder's defaults");
        KvServerConfig c = ServerCommand.parse("--cluster", "http://h1:9001,http://h2:9002,http://h3:9003",
                "--self", "http://h2:9002", "--port", "9002", "--replication-factor", "2", "--hints", "off",
                "--hint-window-s", "60", "--hint-replay-bytes-per-s", "1000", "--max-hint-bytes", "5000",
                "--read-repair", "async", "--tombstone-grace-s", "120");
        io.kvstore.cluster.ReplicationOptions r = c.replication();
        assertEquals(2, r.replicationFactor(3));
        assertFalse(r.hints());
        assertEquals(Duration.ofSeconds(60), r.hintWindow());
        assertEquals(1000, r.hintReplayBytesPerSecond());
        assertEquals(5000, r.maxHintBytes());
        assertEquals(io.kvstore.cluster.ReadRepair.ASYNC, r.readRepair());
        assertEquals(Duration.ofSeconds(120), r.tombstoneGrace());
        assertEquals(Duration.ofSeconds(120), c.storeOptions().tombstoneGrace(), "the store keeps tombstones as long");
        assertEquals(3, ServerCommand.parse("--cluster", "http://h1:9001,http://h2:9002,http://h3:9003",
                "--self", "http://h1:9001", "--port", "9001").replication().replicationFactor(3), "RF defaults to the cluster size");
    }

    @Test
    void badReplicationFlagsAreUsageErrorsThatNameTheProblem() {
        String cluster = "http://h1:9001,http://h2:9002";
        assertTrue(assertThrows(ParameterException.class, () -> ServerCommand.parse("--cluster", cluster,
                "--self", "http://h1:9001", "--port", "9001", "--replication-factor", "3")).getMessage()
                .contains("replication factor 3"));
        assertTrue(assertThrows(ParameterException.class, () -> ServerCommand.parse("--hint-window-s", "100",
                "--tombstone-grace-s", "100")).getMessage().contains("shorter than the tombstone grace"));
        assertTrue(assertThrows(ParameterException.class, () -> ServerCommand.parse("--read-repair", "sometimes"))
                .getMessage().contains("sometimes"));
        assertThrows(ParameterException.class, () -> ServerCommand.parse("--hints", "maybe"));
        assertThrows(ParameterException.class, () -> ServerCommand.parse("--hint-replay-bytes-per-s", "0"));
    }
}
