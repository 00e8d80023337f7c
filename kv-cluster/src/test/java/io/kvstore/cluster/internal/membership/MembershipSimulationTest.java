package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Membership under {@link MembershipSimulation}: some tens of seeds in the default suite, hundreds in the
 * slow tier's {@code .ci/matrix} ({@code -Dkv.membershipSeeds=N} sets how many). One seed's run is
 * replayed with {@code -Dkv.seed=N -Dkv.membershipSeeds=1}.
 */
class MembershipSimulationTest {
    private static final int SEEDS = Integer.getInteger("kv.membershipSeeds", 40);

    @Test
    void everyAcknowledgedWriteKeepsAQuorumOfHoldersThroughChangesCrashesAndPartitions() {
        long base = Seeds.seed("MembershipSimulationTest");
        SplittableRandom seeds = new SplittableRandom(base);
        int changes = 0;
        int done = 0;
        Map<String, Integer> requests = new TreeMap<>();
        for (int i = 0; i < SEEDS; i++) {
            MembershipSimulation simulation = new MembershipSimulation(i == 0 ? base : seeds.nextLong(),
                    MembershipSimulation.PlantedBug.NONE);
            simulation.run();
            changes += simulation.changesStarted();
            done += simulation.changesDone();
            simulation.outcomes.forEach((outcome, count) -> requests.merge(outcome, count, Integer::sum));
            if (i < 3) {
                System.out.println("MembershipSimulationTest: " + simulation.describe());
            }
        }
        System.out.println("MembershipSimulationTest: " + SEEDS + " runs; the operator's requests: " + requests + "; " + changes + " changes started, " + done + " done");
        assertTrue(done >= SEEDS / 2, "the simulation completed too few changes to mean anything: " + done + " of " + changes);
    }

    /**
     * The planted bug: a decommission whose only sender is the leaving node loses keys under modn and jump,
     * seen as a stale quorum read or a key below a quorum of holders.
     */
    @Test
    void whenOnlyTheLeavingNodeStreamsTheSimulationFindsTheLoss() {
        long base = Seeds.seed("MembershipSimulationTest.planted");
        SplittableRandom seeds = new SplittableRandom(base);
        AssertionError found = assertThrows(MembershipSimulation.Violation.class, () -> {
            for (int i = 0; i < 200; i++) {
                new MembershipSimulation(i == 0 ? base : seeds.nextLong(),
                        MembershipSimulation.PlantedBug.ONLY_THE_LEAVING_NODE_STREAMS).run();
            }
        });
        assertTrue(found.getMessage().contains("is held by") || found.getMessage().contains("quorum read"), found.getMessage());
    }
}
