package io.kvstore.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.client.TlsEngine;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.SyncPolicy;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A configuration made of the options objects it configures, with their defaults; defaults that follow the
 * heap; the standalone server's command line for launchers of their own.
 */
class KvServerConfigTest {
    private static final long MIB = 1L << 20;

    @Test
    void theDefaultMemtableIsTheStoresUnlessTheHeapIsUnder512MiB() {
        assertEquals(32 * MIB, KvServerConfig.defaultFlushThresholdBytes(Long.MAX_VALUE), "no heap limit");
        assertEquals(32 * MIB, KvServerConfig.defaultFlushThresholdBytes(8L << 30));
        assertEquals(32 * MIB, KvServerConfig.defaultFlushThresholdBytes(512 * MIB));
        assertEquals(16 * MIB, KvServerConfig.defaultFlushThresholdBytes(256 * MIB));
        assertEquals(8 * MIB, KvServerConfig.defaultFlushThresholdBytes(128 * MIB));
        assertEquals(MIB, KvServerConfig.defaultFlushThresholdBytes(8 * MIB), "never below 1 MiB");
    }

    @Test
    void aBuilderStartsFromTheDefaultOfThisHeap() {
        assertEquals(KvServerConfig.defaultFlushThresholdBytes(Runtime.getRuntime().maxMemory()),
                KvServerConfig.builder().build().storeOptions().flushThresholdBytes());
    }

    @Test
    void aCommandLineGivesTheConfigurationTheStandaloneServerWouldRunWith() {
        KvServerConfig config = KvServerConfig.fromCommandLine("--port", "9001", "--event-loops", "1", "--flush-threshold", "8388608");
        assertEquals(9001, config.port());
        assertEquals(1, config.network().eventLoops());
        assertEquals(8 * MIB, config.storeOptions().flushThresholdBytes());
        assertEquals(KvServerConfig.builder().build().network().replicaTimeout(),
                KvServerConfig.fromCommandLine().network().replicaTimeout());
    }

    @Test
    void aWrongCommandLineIsRefusedNamingTheOption() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> KvServerConfig.fromCommandLine("--port", "9001", "--no-such-flag"));
        assertTrue(unknown.getMessage().contains("--no-such-flag"), unknown.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> KvServerConfig.fromCommandLine("--event-loops", "many"));
        assertTrue(bad.getMessage().contains("--event-loops"), bad.getMessage());
        IllegalArgumentException help = assertThrows(IllegalArgumentException.class, () -> KvServerConfig.fromCommandLine("--help"));
        assertTrue(help.getMessage().contains("--help"), help.getMessage());
    }

    @Test
    void eachSettingLandsInTheOptionsObjectItBelongsTo() {
        KvServerConfig config = KvServerConfig.builder()
                .store(store -> store.syncPolicy(SyncPolicy.GROUP_COMMIT).compression(Compression.ZSTD))
                .replication(replication -> replication.hints(false).tombstoneGrace(Duration.ofDays(2)))
                .network(network -> network.maxBodyBytes(1 << 16).eventLoops(2))
                .security(security -> security.clusterSecretFile(Path.of("no-such-secret")).tlsEngine(TlsEngine.JDK))
                .build();
        assertEquals(SyncPolicy.GROUP_COMMIT, config.storeOptions().syncPolicy());
        assertEquals(Compression.ZSTD, config.storeOptions().compression());
        assertFalse(config.replication().hints());
        assertEquals(Duration.ofDays(2), config.storeOptions().tombstoneGrace(), "the store keeps tombstones as long");
        assertEquals(1 << 16, config.network().maxBodyBytes());
        assertEquals(2, config.network().eventLoops());
        assertEquals(Path.of("no-such-secret"), config.security().clusterSecretFile(), "named, not read");
        assertEquals(TlsEngine.JDK, config.security().tlsEngine());
    }

    @Test
    void theDefaultsAreTheOptionsClassesOwnSaveTheNodesFew() {
        KvServerConfig config = KvServerConfig.builder().build();
        DaoOptions store = DaoOptions.defaults(Path.of(KvServerConfig.DEFAULT_DATA_DIRECTORY));
        assertEquals(store.syncPolicy(), config.storeOptions().syncPolicy());
        assertEquals(store.compression(), config.storeOptions().compression());
        assertEquals(store.scrubPeriod(), config.storeOptions().scrubPeriod());
        assertEquals(store.minFreeBytes(), config.storeOptions().minFreeBytes());
        assertEquals(KvServerConfig.DEFAULT_COMPACTION_BYTES_PER_SECOND, config.storeOptions().compactionBytesPerSecond());
        ReplicationOptions replication = ReplicationOptions.defaults();
        assertEquals(replication.hintWindow(), config.replication().hintWindow());
        assertEquals(replication.tombstoneGrace(), config.storeOptions().tombstoneGrace());
        NetworkOptions network = NetworkOptions.defaults();
        assertEquals(network.maxBodyBytes(), config.network().maxBodyBytes());
        assertEquals(network.replicaTimeout(), config.network().replicaTimeout());
        assertEquals(SecurityOptions.DEFAULT_TLS_ENGINE, config.security().tlsEngine());
        assertEquals("http", config.scheme());
    }

    /** An embedder configures a node with the API's types alone: no signature names a type of the node's layers. */
    @Test
    void thePublicConfigurationApiNamesOnlyPublicTypes() {
        for (Class<?> type : List.of(KvServerConfig.class, KvServerConfig.Builder.class, NetworkOptions.class,
                NetworkOptions.Builder.class, SecurityOptions.class, SecurityOptions.Builder.class)) {
            for (Method method : type.getMethods()) {
                List<Class<?>> named = new ArrayList<>(List.of(method.getParameterTypes()));
                named.add(method.getReturnType());
                for (Class<?> each : named) {
                    String name = each.getName();
                    assertFalse(name.startsWith("io.kvstore.server.") && !name.startsWith("io.kvstore.server.config.")
                            || name.contains(".internal."), type.getSimpleName() + "." + method.getName() + " names " + name);
                }
            }
        }
    }
}
