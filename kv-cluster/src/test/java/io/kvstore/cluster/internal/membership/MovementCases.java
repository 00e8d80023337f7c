package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.RingTokens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The membership changes the key movement tests run on: every partitioner (and the ring with
 * allocated tokens, "ring allocated") at RF 2 and 3 of five nodes, the first, middle and last node of
 * the map joining, being decommissioned, or removed dead.
 */
final class MovementCases {
    static final String PARTITIONERS = "io.kvstore.cluster.internal.membership.MovementCases#partitioners";
    static final String JOINS_AND_DECOMMISSIONS = "io.kvstore.cluster.internal.membership.MovementCases#joinsAndDecommissions";
    static final String REMOVALS = "io.kvstore.cluster.internal.membership.MovementCases#removals";
    static final String CHANGES = "io.kvstore.cluster.internal.membership.MovementCases#changes";
    static final List<String> FIVE = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4", "http://e:5");
    private static final int[] POSITIONS = {0, 2, 4};
    private static final String[] POSITION_NAMES = {"first", "middle", "last"};

    private MovementCases() {
    }

    /** Every partitioner, and the ring with allocated tokens as "ring allocated". */
    static List<String> partitioners() {
        List<String> names = new ArrayList<>(Partitioners.names());
        names.add("ring allocated");
        return names;
    }

    static ClusterMap seed(List<String> nodes, int replicationFactor, String partitioner) {
        String[] parts = partitioner.split(" ");
        RingTokens tokens = parts.length > 1 ? RingTokens.parse(parts[1]) : RingTokens.RANDOM;
        return ClusterMap.seed(nodes, replicationFactor, parts[0], 16, tokens);
    }

    /** Joins and decommissions, each argument a named movement. */
    static List<Arguments> joinsAndDecommissions() {
        List<Arguments> cases = new ArrayList<>();
        forEachCase((partitioner, replicationFactor, position) -> {
            cases.add(named("join", partitioner, replicationFactor, position, join(partitioner, replicationFactor, position)));
            String leaves = FIVE.get(POSITIONS[position]);
            ClusterMap leaving = seed(FIVE, replicationFactor, partitioner).withState(leaves, NodeState.LEAVING);
            cases.add(named("decommission", partitioner, replicationFactor, position,
                    KeyMovement.decommission(2, leaving, leaves)));
        });
        return cases;
    }

    /** Removals of a dead node, each argument a named movement. */
    static List<Arguments> removals() {
        List<Arguments> cases = new ArrayList<>();
        forEachCase((partitioner, replicationFactor, position) -> {
            String dies = FIVE.get(POSITIONS[position]);
            ClusterMap leaving = seed(FIVE, replicationFactor, partitioner).withState(dies, NodeState.LEAVING);
            cases.add(named("removal", partitioner, replicationFactor, position,
                    KeyMovement.removal(2, leaving, leaving.without(dies))));
        });
        return cases;
    }

    /** Every change: joins, decommissions and removals. */
    static List<Arguments> changes() {
        List<Arguments> cases = joinsAndDecommissions();
        cases.addAll(removals());
        return cases;
    }

    static byte[] key(int k) {
        return ("key" + k).getBytes(StandardCharsets.UTF_8);
    }

    /** The fifth node joins four, placed first, in the middle or last in the map's order. */
    private static KeyMovement join(String partitioner, int replicationFactor, int position) {
        String newcomer = FIVE.get(4);
        ClusterMap appended = seed(FIVE.subList(0, 4), replicationFactor, partitioner).withJoining(newcomer);
        List<Member> members = new ArrayList<>(appended.members());
        members.add(POSITIONS[position], members.remove(4));
        ClusterMap joining = new ClusterMap(appended.epoch(), replicationFactor, appended.partitioner(),
                appended.virtualNodes(), members);
        return KeyMovement.join(2, joining, newcomer);
    }

    private static Arguments named(String change, String partitioner, int replicationFactor, int position,
                                   KeyMovement movement) {
        String name = change + " of the " + POSITION_NAMES[position] + " node, " + partitioner + ", RF " + replicationFactor;
        return Arguments.of(Named.of(name, movement));
    }

    private static void forEachCase(Case each) {
        for (String partitioner : partitioners()) {
            for (int replicationFactor = 2; replicationFactor <= 3; replicationFactor++) {
                for (int position = 0; position < POSITIONS.length; position++) {
                    each.accept(partitioner, replicationFactor, position);
                }
            }
        }
    }

    private interface Case {
        void accept(String partitioner, int replicationFactor, int position);
    }
}
