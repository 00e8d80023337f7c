package io.kvstore.cluster.internal.metadata;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The epoch log under {@link MetadataSimulation}: a few hundred seeds in the default suite, thousands in
 * the slow tier's {@code .ci/matrix} ({@code -Dkv.metadataSeeds=N} sets how many). One seed's run is
 * replayed with {@code -Dkv.seed=N -Dkv.metadataSeeds=1}.
 */
class MetadataSimulationTest {
    private static final int SEEDS = Integer.getInteger("kv.metadataSeeds", 300);

    @Test
    void noEpochIsEverDecidedTwiceAndTheLogMovesOnOnceHealed() {
        long base = Seeds.seed("MetadataSimulationTest");
        SplittableRandom seeds = new SplittableRandom(base);
        long epochs = 0;
        long messages = 0;
        for (int i = 0; i < SEEDS; i++) {
            long seed = i == 0 ? base : seeds.nextLong();
            MetadataSimulation simulation = new MetadataSimulation(seed, size -> size / 2 + 1);
            simulation.run();
            epochs += simulation.epochs();
            messages += simulation.messages();
        }
        System.out.println("MetadataSimulationTest: " + SEEDS + " runs, " + epochs + " epochs decided, " + messages + " messages");
        assertTrue(epochs >= 2L * SEEDS, "the simulation decided too few epochs to mean anything: " + epochs);
    }

    /** The planted bug: a proposer that takes one acceptor's word for a majority forks the log. */
    @Test
    void withoutTheMajorityCheckTheSimulationFindsAFork() {
        long base = Seeds.seed("MetadataSimulationTest.planted");
        SplittableRandom seeds = new SplittableRandom(base);
        AssertionError found = assertThrows(MetadataSimulation.Violation.class, () -> {
            for (int i = 0; i < 200; i++) {
                new MetadataSimulation(i == 0 ? base : seeds.nextLong(), size -> 1).run();
            }
        });
        assertTrue(found.getMessage().contains("fork") || found.getMessage().contains("two values chosen"), found.getMessage());
    }
}
