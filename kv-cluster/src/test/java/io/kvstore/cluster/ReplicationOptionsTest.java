package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReplicationOptionsTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        ReplicationOptions options = ReplicationOptions.defaults();
        assertEquals(5, options.replicationFactor(5), "RF defaults to the cluster size");
        assertTrue(options.hints());
        assertEquals(Duration.ofHours(3), options.hintWindow());
        assertEquals(4L << 20, options.hintReplayBytesPerSecond());
        assertEquals(1L << 30, options.maxHintBytes());
        assertEquals(ReadRepair.BLOCKING, options.readRepair());
        assertEquals(Duration.ofDays(10), options.tombstoneGrace());
    }

    @Test
    void aReplicationFactorAboveTheClusterSizeIsRefused() {
        ReplicationOptions options = ReplicationOptions.builder().replicationFactor(3).build();
        assertEquals(3, options.replicationFactor(4));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> options.replicationFactor(2));
        assertTrue(error.getMessage().contains("replication factor 3"), error.getMessage());
    }

    @Test
    void optionsOutOfRangeAreRefusedWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> ReplicationOptions.builder().replicationFactor(-1).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicationOptions.builder().hintWindow(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicationOptions.builder().hintReplayBytesPerSecond(0).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicationOptions.builder().maxHintBytes(-1).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicationOptions.builder().tombstoneGrace(null).build());
    }

    @Test
    void theHintWindowMustBeShorterThanTheTombstoneGraceWhileHintsAreOn() {
        ReplicationOptions.Builder b = ReplicationOptions.builder().hintWindow(Duration.ofDays(10));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, b::build);
        assertTrue(error.getMessage().contains("shorter than the tombstone grace"), error.getMessage());
        assertEquals(Duration.ofDays(10), b.hints(false).build().hintWindow(), "no hints, no constraint");
    }

    @Test
    void readRepairModesHaveTheirFlagNames() {
        assertEquals(ReadRepair.ASYNC, ReadRepair.fromId("async"));
        assertEquals("blocking", ReadRepair.BLOCKING.id());
        assertThrows(IllegalArgumentException.class, () -> ReadRepair.fromId("eventually"));
    }
}
