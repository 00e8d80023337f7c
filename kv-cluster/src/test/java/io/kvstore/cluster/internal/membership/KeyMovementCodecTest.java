package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyMovementCodecTest {
    /** A decommission of c, RF 2 of three nodes, as nodes wrote it before plans had failed sources. */
    private static final String DECOMMISSION = "{\"id\":7,\"fromSurvivors\":false,"
            + "\"before\":{\"epoch\":2,\"replicationFactor\":2,\"partitioner\":\"ring\",\"virtualNodes\":4,\"nodes\":["
            + "{\"url\":\"http://a:1\",\"state\":\"normal\"},{\"url\":\"http://b:2\",\"state\":\"normal\"},"
            + "{\"url\":\"http://c:3\",\"state\":\"leaving\"}]},"
            + "\"after\":{\"epoch\":3,\"replicationFactor\":2,\"partitioner\":\"ring\",\"virtualNodes\":4,\"nodes\":["
            + "{\"url\":\"http://a:1\",\"state\":\"normal\"},{\"url\":\"http://b:2\",\"state\":\"normal\"}]}}";

    private static KeyMovement decommission() {
        ClusterMap three = ClusterMap.seed(List.of("http://a:1", "http://b:2", "http://c:3"), 2, "ring", 4);
        return KeyMovement.decommission(7, three.withState("http://c:3", NodeState.LEAVING), "http://c:3");
    }

    @Test
    void aPlanWithoutFailedSourcesIsWrittenAsBeforeAndTheOldFormReadsAsIt() {
        assertEquals(DECOMMISSION, KeyMovementCodec.toJson(decommission()));
        KeyMovement read = KeyMovementCodec.fromJson(DECOMMISSION);
        assertEquals(Set.of(), read.failedSources());
        assertEquals("7", read.streamName());
        assertEquals(decommission().before(), read.before());
        assertEquals(decommission().after(), read.after());
    }

    @Test
    void failedSourcesFollowTheMapsInUrlOrderAndReadBack() {
        KeyMovement failover = decommission().withoutSources(Set.of("http://c:3", "http://a:1"));
        String json = KeyMovementCodec.toJson(failover);
        assertEquals(DECOMMISSION.substring(0, DECOMMISSION.length() - 1)
                + ",\"withoutSources\":[\"http://a:1\",\"http://c:3\"]}", json);
        KeyMovement read = KeyMovementCodec.fromJson(json);
        assertEquals(failover.failedSources(), read.failedSources());
        assertEquals("7-without-0.2", read.streamName());
        assertEquals(List.of("http://b:2"), read.senders());
    }

    @Test
    void failedSourcesThatAreNoSendersOrNoUrlsAreRefused() {
        String body = DECOMMISSION.substring(0, DECOMMISSION.length() - 1);
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> KeyMovementCodec.fromJson(body + ",\"withoutSources\":[\"http://z:9\"]}"));
        assertTrue(unknown.getMessage().contains("http://z:9"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KeyMovementCodec.fromJson(body + ",\"withoutSources\":[1]}"));
    }
}
