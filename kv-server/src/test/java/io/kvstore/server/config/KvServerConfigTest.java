package io.kvstore.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Defaults that follow the heap; the standalone server's command line for launchers of their own. */
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
        assertEquals(1, config.eventLoops());
        assertEquals(8 * MIB, config.storeOptions().flushThresholdBytes());
        assertEquals(KvServerConfig.builder().build().replicaTimeout(), KvServerConfig.fromCommandLine().replicaTimeout());
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
}
