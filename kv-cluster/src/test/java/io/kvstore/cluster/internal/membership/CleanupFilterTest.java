package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CleanupFilterTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4", "http://e:5");
    private static final String SELF = NODES.get(0);

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * While the map stays at the cleanup's epoch it keeps exactly what the node owns there; once a
     * change begins, it also keeps every key the node gains from it, decided against the map of the
     * moment each key is looked at.
     */
    @Test
    void keysGainedFromAChangeBegunDuringTheCleanupAreKept() {
        ClusterMap settled = ClusterMap.seed(NODES.subList(0, 4), 2, "modn", 16);
        AtomicReference<ClusterMap> newest = new AtomicReference<>(settled);
        CleanupFilter filter = new CleanupFilter(settled, SELF, newest::get);
        OwnedKeys ownedBefore = new OwnedKeys(settled, SELF);
        for (int i = 0; i < 2000; i++) {
            assertEquals(ownedBefore.keeps(key(i)), filter.keeps(key(i)), "key" + i);
        }

        ClusterMap joining = settled.withJoining(NODES.get(4));
        newest.set(joining);
        ClusterMap after = joining.withState(NODES.get(4), NodeState.NORMAL);
        OwnedKeys ownedAfter = new OwnedKeys(after, SELF);
        int gained = 0;
        for (int i = 0; i < 2000; i++) {
            boolean gains = !ownedBefore.keeps(key(i)) && ownedAfter.keeps(key(i));
            gained += gains ? 1 : 0;
            assertEquals(ownedBefore.keeps(key(i)) || ownedAfter.keeps(key(i)), filter.keeps(key(i)), "key" + i);
        }
        assertTrue(gained > 100, "modn gives the node keys when a node joins: " + gained);

        newest.set(after);
        for (int i = 0; i < 2000; i++) {
            assertEquals(ownedBefore.keeps(key(i)) || ownedAfter.keeps(key(i)), filter.keeps(key(i)), "key" + i);
        }
    }
}
