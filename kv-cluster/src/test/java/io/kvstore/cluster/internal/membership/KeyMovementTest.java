package io.kvstore.cluster.internal.membership;

import static io.kvstore.cluster.internal.membership.MovementCases.FIVE;
import static io.kvstore.cluster.internal.membership.MovementCases.key;
import static io.kvstore.cluster.internal.membership.MovementCases.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyMovementTest {
    private static final int KEYS = 2000;

    /**
     * The pairing: every node that gains a key receives exactly one copy, from a node that stops being
     * its replica, each such node sending to one gainer only; no one else receives anything.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.JOINS_AND_DECOMMISSIONS)
    void eachGainerReceivesOneCopyFromALoserOfItsOwn(KeyMovement movement) {
        int moved = 0;
        for (int k = 0; k < KEYS; k++) {
            KeyStreams key = KeyStreams.of(movement, key(k));
            Set<String> sendersOfKey = new HashSet<>();
            for (String gainer : key.gainers()) {
                List<String> sources = key.sourcesOf(gainer);
                assertEquals(1, sources.size(), "key" + k + " to " + gainer + ": " + key);
                assertTrue(key.losers().contains(sources.get(0)), "key" + k + " from a loser: " + key);
                assertTrue(sendersOfKey.add(sources.get(0)), "key" + k + ": one gainer per loser: " + key);
            }
            assertEquals(key.gainers().size(), key.copies().size(), "key" + k + " only to gainers: " + key);
            moved += key.gainers().size();
        }
        assertTrue(moved > 0, "the change moves some keys");
    }

    /**
     * A key the dead node held reaches each gainer from every live old replica, since any one of them
     * may be the only live holder of a write; a key it did not hold is paired as in a join.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.REMOVALS)
    void aRemovalHasEveryLiveReplicaSendTheDeadNodesKeysToEveryGainer(KeyMovement removal) {
        assertEquals(4, removal.senders().size(), "the dead node is not asked");
        int held = 0;
        for (int k = 0; k < KEYS; k++) {
            KeyStreams key = KeyStreams.of(removal, key(k));
            Set<String> live = new HashSet<>(key.was());
            live.removeAll(key.dead());
            for (String gainer : key.gainers()) {
                List<String> sources = key.sourcesOf(gainer);
                if (key.heldByDead()) {
                    assertEquals(live.size(), sources.size(), "key" + k + " to " + gainer + ": " + key);
                    assertEquals(live, new HashSet<>(sources), "key" + k + " to " + gainer + ": " + key);
                } else {
                    assertEquals(1, sources.size(), "key" + k + " to " + gainer + ": " + key);
                    assertTrue(key.losers().contains(sources.get(0)), "key" + k + " from a loser: " + key);
                }
            }
            held += key.heldByDead() ? 1 : 0;
        }
        assertTrue(held > 0, "the dead node held some keys");
    }

    /**
     * Why a decommission asks every owner: under modn and jump the nodes that stay hand keys to each
     * other, which the leaving node never held. A change that asked only the leaving node would leave
     * those keys below their replication factor.
     */
    @ParameterizedTest
    @ValueSource(strings = {"modn", "jump"})
    void underModnAndJumpTheNodesThatStayLoseKeysOnADecommission(String partitioner) {
        ClusterMap leaving = seed(FIVE, 2, partitioner).withState(FIVE.get(2), NodeState.LEAVING);
        KeyMovement movement = KeyMovement.decommission(2, leaving, FIVE.get(2));
        assertEquals(leaving.owners(), movement.senders());
        int sentByStayers = 0;
        for (int k = 0; k < KEYS; k++) {
            for (KeyStreams.Copy copy : KeyStreams.of(movement, key(k)).copies()) {
                sentByStayers += copy.from().equals(FIVE.get(2)) ? 0 : 1;
            }
        }
        assertTrue(sentByStayers > 200, "copies sent between nodes that stay: " + sentByStayers);
    }

    /**
     * When the replication factor grows there are more gainers than losers: the i-th loser feeds the
     * i-th gainer, the first loser the ones beyond, and the first old replica all of them when no
     * replica loses the key.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.PARTITIONERS)
    void gainersBeyondTheLosersReceiveFromTheFirstLoserElseTheFirstOldReplica(String partitioner) {
        ClusterMap joining = seed(FIVE.subList(0, 4), 2, partitioner).withJoining(FIVE.get(4));
        List<Member> members = new ArrayList<>(joining.members());
        members.set(4, members.get(4).withState(NodeState.NORMAL));
        ClusterMap grown = new ClusterMap(joining.epoch() + 1, 3, joining.partitioner(), joining.virtualNodes(), members);
        KeyMovement movement = new KeyMovement(2, joining, grown, false);
        int extras = 0;
        for (int k = 0; k < KEYS; k++) {
            KeyStreams key = KeyStreams.of(movement, key(k));
            for (int i = 0; i < key.gainers().size(); i++) {
                String expected = i < key.losers().size() ? key.losers().get(i)
                        : key.losers().isEmpty() ? key.was().get(0) : key.losers().get(0);
                assertEquals(List.of(expected), key.sourcesOf(key.gainers().get(i)), "key" + k + ": " + key);
                extras += i < key.losers().size() ? 0 : 1;
            }
        }
        assertTrue(extras > 0, "some gainer has no loser of its own");
    }

    /** A failed source is no longer asked, and if asked anyway sends nothing. */
    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void aFailedSourceIsNotAskedAndSendsNothing(KeyMovement movement) {
        for (String failed : movement.senders()) {
            KeyMovement failover = movement.withoutSources(Set.of(failed));
            List<String> others = new ArrayList<>(movement.senders());
            others.remove(failed);
            assertEquals(others, failover.senders());
            int[] out = new int[3];
            for (int k = 0; k < KEYS / 4; k++) {
                assertEquals(0, failover.targets(key(k), failover.indexOf(failed), out, new int[3], new int[3]));
            }
        }
    }

    /**
     * With one source failed (sending nothing at all), the other senders' share of the first plan and
     * the failover plan together still bring every key to every gainer, from an old replica that did
     * not fail, whenever one is alive.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void withOneFailedSourceEveryGainerStillReceivesEveryKeyFromALiveHolder(KeyMovement movement) {
        forEachFailover(movement, (failed, first, then) -> {
            List<String> holders = new ArrayList<>(first.was());
            holders.removeAll(first.dead());
            holders.remove(failed);
            for (String gainer : first.gainers()) {
                List<String> sources = new ArrayList<>(first.sourcesOf(gainer));
                sources.remove(failed);
                sources.addAll(then.sourcesOf(gainer));
                Supplier<String> context = () -> gainer + " with " + failed + " failed: " + first + " then " + then;
                assertEquals(!holders.isEmpty(), !sources.isEmpty(), context);
                assertTrue(holders.containsAll(sources), context);
            }
        });
    }

    /**
     * The failover plan sends only what the failed source was to send and no one else does, once per
     * (key, gainer), from the next loser after the failed one, else from the first survivor.
     */
    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void aFailoverPlanSendsOnlyTheFailedSourcesShare(KeyMovement movement) {
        int[] replaced = new int[1];
        forEachFailover(movement, (failed, first, then) -> {
            int sent = 0;
            for (String gainer : first.gainers()) {
                String expected = first.sourcesOf(gainer).equals(List.of(failed)) ? failoverSource(first, failed) : null;
                assertEquals(expected == null ? List.of() : List.of(expected), then.sourcesOf(gainer),
                        () -> gainer + " with " + failed + " failed: " + first + " then " + then);
                sent += expected == null ? 0 : 1;
            }
            assertEquals(sent, then.copies().size(), () -> "only to gainers: " + then);
            replaced[0] += sent;
        });
        assertTrue(replaced[0] > 0 || movement.fromSurvivors(), "some share is replaced");
    }

    @Test
    void failedSourcesAddUpNameTheirStreamAndMustBeSenders() {
        ClusterMap leaving = seed(FIVE, 3, "modn").withState(FIVE.get(2), NodeState.LEAVING);
        KeyMovement movement = KeyMovement.decommission(7, leaving, FIVE.get(2));
        assertEquals("7", movement.streamName());
        assertEquals(Set.of(), movement.failedSources());
        KeyMovement twice = movement.withoutSources(Set.of(FIVE.get(3))).withoutSources(Set.of(FIVE.get(0)));
        assertEquals(List.of(FIVE.get(0), FIVE.get(3)), new ArrayList<>(twice.failedSources()));
        assertEquals("7-without-0.3", twice.streamName());
        assertEquals(movement.withoutSources(Set.of(FIVE.get(0), FIVE.get(3))).streamName(), twice.streamName());
        assertEquals(List.of(FIVE.get(1), FIVE.get(2), FIVE.get(4)), twice.senders());

        assertThrows(IllegalArgumentException.class, () -> movement.withoutSources(Set.of("http://elsewhere:9")));
        ClusterMap joining = seed(FIVE.subList(0, 4), 3, "ring").withJoining(FIVE.get(4));
        assertThrows(IllegalArgumentException.class,
                () -> KeyMovement.join(7, joining, FIVE.get(4)).withoutSources(Set.of(FIVE.get(4))), "the newcomer holds nothing");
        KeyMovement removal = KeyMovement.removal(7, leaving, leaving.without(FIVE.get(2)));
        IllegalArgumentException dead = assertThrows(IllegalArgumentException.class,
                () -> removal.withoutSources(Set.of(FIVE.get(2))));
        assertTrue(dead.getMessage().contains(FIVE.get(2)), dead.getMessage());
        assertFalse(removal.withoutSources(Set.of(FIVE.get(1))).senders().contains(FIVE.get(1)));
    }

    /** Runs {@code check} on each key's streams under {@code movement} and under it without each of its senders. */
    private static void forEachFailover(KeyMovement movement, FailoverCheck check) {
        List<String> senders = movement.senders();
        List<KeyMovement> failovers = new ArrayList<>();
        for (String sender : senders) {
            failovers.add(movement.withoutSources(Set.of(sender)));
        }
        for (int k = 0; k < KEYS / 4; k++) {
            KeyStreams first = KeyStreams.of(movement, key(k));
            for (int i = 0; i < senders.size(); i++) {
                check.accept(senders.get(i), first, KeyStreams.of(failovers.get(i), key(k)));
            }
        }
    }

    private interface FailoverCheck {
        void accept(String failed, KeyStreams first, KeyStreams then);
    }

    /**
     * Who sends in place of {@code failed}, the only sender of a key to some gainer: nobody for a key of
     * a dead node (no other live holder is left), else the next loser after it (wrapping), else the
     * first survivor.
     */
    private static String failoverSource(KeyStreams key, String failed) {
        if (key.heldByDead()) {
            return null;
        }
        List<String> losers = key.losers();
        int at = losers.indexOf(failed);
        if (at >= 0 && losers.size() > 1) {
            return losers.get((at + 1) % losers.size());
        }
        for (String node : key.was()) {
            if (!losers.contains(node) && !node.equals(failed)) {
                return node;
            }
        }
        return null;
    }
}
