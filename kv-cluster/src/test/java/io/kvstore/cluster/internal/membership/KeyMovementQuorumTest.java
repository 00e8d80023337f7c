package io.kvstore.cluster.internal.membership;

import static io.kvstore.cluster.internal.membership.MovementCases.key;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A model of what a plan does to acknowledged writes: a write of a key is held by a random quorum of its
 * old replicas (RF/2 + 1, the ones that acknowledged it), minus a dead node being removed; each sender
 * that holds it sends it as {@link KeyMovement#targets} says; then the new replicas that hold it are
 * counted. Seeds are printed; replay one with {@code -Dkv.seed=N}.
 */
class KeyMovementQuorumTest {
    private static final long SEED = Seeds.seed("KeyMovementQuorumTest");
    private static final int WRITES = 1000;

    /**
     * A write acknowledged by a quorum of the old replicas is on a quorum of the new ones (on as many
     * as held it, in a join or decommission), and on every gainer whose paired loser held it.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void aQuorumWriteStaysOnAQuorumOfTheNewReplicas(KeyMovement movement, TestInfo test) {
        SplittableRandom random = new SplittableRandom(SEED ^ test.getDisplayName().hashCode());
        for (int k = 0; k < WRITES; k++) {
            KeyStreams key = KeyStreams.of(movement, key(random.nextInt()));
            int quorum = key.was().size() / 2 + 1;
            Set<String> holders = acknowledged(key, quorum, random);
            holders.removeAll(key.dead());
            Set<String> after = holdersAfter(key, holders, key.copies());
            String context = "key " + key + ", written to " + holders + ", then on " + after + " (seed " + SEED + ")";
            assertTrue(after.size() >= quorum, context);
            if (!key.heldByDead()) {
                assertTrue(after.size() >= holders.size(), context);
                for (int i = 0; i < Math.min(key.losers().size(), key.gainers().size()); i++) {
                    assertTrue(!holders.contains(key.losers().get(i)) || after.contains(key.gainers().get(i)), context);
                }
            }
        }
    }

    /**
     * With one source failed (its copies lost, as if it died), the other senders' share of the first
     * plan and the failover plan leave a write on at least as many new replicas as live holders that
     * did not fail held it: at RF 3 a quorum write keeps one copy, if not a quorum.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void withAFailedSourceAWriteKeepsOneNewReplicaPerHolderThatDidNotFail(KeyMovement movement, TestInfo test) {
        SplittableRandom random = new SplittableRandom(SEED ^ test.getDisplayName().hashCode());
        List<String> senders = movement.senders();
        List<KeyMovement> failovers = new ArrayList<>();
        for (String sender : senders) {
            failovers.add(movement.withoutSources(Set.of(sender)));
        }
        for (int k = 0; k < WRITES; k++) {
            int source = random.nextInt(senders.size());
            String failed = senders.get(source);
            byte[] bytes = key(random.nextInt());
            KeyStreams key = KeyStreams.of(movement, bytes);
            List<KeyStreams.Copy> copies = new ArrayList<>(KeyStreams.of(failovers.get(source), bytes).copies());
            for (KeyStreams.Copy copy : key.copies()) {
                if (!copy.from().equals(failed)) {
                    copies.add(copy);
                }
            }
            Set<String> holders = acknowledged(key, key.was().size() / 2 + 1, random);
            holders.removeAll(key.dead());
            holders.remove(failed);
            Set<String> after = holdersAfter(key, holders, copies);
            assertTrue(after.size() >= holders.size(), "key " + key + " with " + failed + " failed, written to "
                    + holders + ", then on " + after + " (seed " + SEED + ")");
        }
    }

    /** A random {@code count} of the key's old replicas. */
    private static Set<String> acknowledged(KeyStreams key, int count, SplittableRandom random) {
        List<String> replicas = new ArrayList<>(key.was());
        Set<String> chosen = new HashSet<>();
        while (chosen.size() < count) {
            chosen.add(replicas.remove(random.nextInt(replicas.size())));
        }
        return chosen;
    }

    /** The new replicas holding the write once {@code copies} were sent by those of them that hold it. */
    private static Set<String> holdersAfter(KeyStreams key, Set<String> holders, List<KeyStreams.Copy> copies) {
        Set<String> after = new HashSet<>(holders);
        for (KeyStreams.Copy copy : copies) {
            if (holders.contains(copy.from())) {
                after.add(copy.to());
            }
        }
        after.retainAll(key.will());
        return after;
    }
}
