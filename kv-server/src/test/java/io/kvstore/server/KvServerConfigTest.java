package io.kvstore.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Defaults that follow the heap. */
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
}
