package io.kvstore.cluster.internal.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** The proposer's outcomes against scripted acceptors, in virtual time. */
class EpochProposerTest {
    private static final MetadataGroup GROUP = new MetadataGroup(List.of("a", "b", "c"));
    private static final byte[] MINE = "mine".getBytes(StandardCharsets.UTF_8);
    private static final byte[] THEIRS = "theirs".getBytes(StandardCharsets.UTF_8);

    private long now;
    private final Queue<Runnable> due = new ArrayDeque<>();

    private EpochProposer proposer(EpochTransport transport) {
        return new EpochProposer("p", transport, (delay, task) -> due.add(() -> {
            now += delay;
            task.run();
        }), () -> now, new SplittableRandom(1), 100);
    }

    private EpochProposer.Outcome run(CompletionStage<EpochProposer.Outcome> outcome) {
        CompletableFuture<EpochProposer.Outcome> done = outcome.toCompletableFuture();
        while (!done.isDone() && !due.isEmpty()) {
            due.poll().run();
        }
        return done.join();
    }

    @Test
    void withoutAMajorityOfPromisesTheMapWasSentToNoOneAndTheRefusalIsSure() {
        EpochTransport onlyA = (acceptor, request) -> acceptor.equals("a")
                ? CompletableFuture.completedFuture(new EpochReply.Promise(null, null))
                : CompletableFuture.failedFuture(new RuntimeException(acceptor + " is down"));
        EpochProposer.Outcome.NoQuorum none = assertInstanceOf(EpochProposer.Outcome.NoQuorum.class,
                run(proposer(onlyA).propose(2, GROUP, MINE, 1_000)));
        assertFalse(none.valueSent());
        assertTrue(none.reason().contains("is down"), none.reason());
    }

    @Test
    void aMajorityThatPromisesButDoesNotAcceptLeavesTheOutcomeUnknown() {
        EpochTransport noAccepts = (acceptor, request) -> request instanceof EpochRequest.Prepare
                ? CompletableFuture.completedFuture(new EpochReply.Promise(null, null))
                : acceptor.equals("a") ? CompletableFuture.completedFuture(new EpochReply.Accepted())
                : new CompletableFuture<>();
        EpochProposer.Outcome.NoQuorum none = assertInstanceOf(EpochProposer.Outcome.NoQuorum.class,
                run(proposer(noAccepts).propose(2, GROUP, MINE, 1_000)));
        assertTrue(none.valueSent(), "a member accepted the map: it may still be chosen");
    }

    @Test
    void aValueAMemberAlreadyAcceptedIsCarriedOnInsteadOfTheProposersOwn() {
        EpochTransport oneAccepted = (acceptor, request) -> {
            if (request instanceof EpochRequest.Prepare) {
                return CompletableFuture.completedFuture(acceptor.equals("b")
                        ? new EpochReply.Promise(new Ballot(1, "q"), THEIRS) : new EpochReply.Promise(null, null));
            }
            return CompletableFuture.completedFuture(new EpochReply.Accepted());
        };
        EpochProposer.Outcome.Chosen chosen = assertInstanceOf(EpochProposer.Outcome.Chosen.class,
                run(proposer(oneAccepted).propose(2, GROUP, MINE, 1_000)));
        assertArrayEquals(THEIRS, chosen.value());
        assertFalse(chosen.ours());
    }

    @Test
    void anEpochDecidedAlreadyEndsTheProposalWithTheDecidedMap() {
        EpochTransport decided = (acceptor, request) -> CompletableFuture.completedFuture(new EpochReply.Decided(5, THEIRS));
        EpochProposer.Outcome.Superseded later = assertInstanceOf(EpochProposer.Outcome.Superseded.class,
                run(proposer(decided).propose(2, GROUP, MINE, 1_000)));
        assertArrayEquals(THEIRS, later.value());
    }
}
