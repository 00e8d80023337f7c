package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class RoundDeadlinesTest {
    private static final byte[] KEY = {1};

    private static QuorumRound<String> round(long timeoutNanos) {
        return new QuorumRound<>("GET", KEY, 1, 1, (a, b) -> a, timeoutNanos);
    }

    @Test
    void anUndecidedRoundFailsAfterItsDeadlineAndNotBefore() throws Exception {
        long timeout = TimeUnit.MILLISECONDS.toNanos(100);
        RoundDeadlines deadlines = new RoundDeadlines(timeout);
        QuorumRound<String> round = round(timeout);
        long start = System.nanoTime();
        assertTrue(round.allSent());
        deadlines.watch(round);
        CompletableFuture<String> result = round.result();
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(10, TimeUnit.SECONDS));
        long waited = System.nanoTime() - start;
        assertTrue(waited >= timeout, "failed after " + waited + " ns, before its deadline");
        NotEnoughReplicasException notEnough = assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
        assertInstanceOf(TimeoutException.class, notEnough.getCause());
        assertTrue(notEnough.getMessage().contains("timed out after 100 ms"), notEnough.getMessage());
    }

    @Test
    void decidedRoundsBehindAWaitingOneAreLetGoAndDroppedWithoutFailing() throws Exception {
        long timeout = TimeUnit.MILLISECONDS.toNanos(300);
        RoundDeadlines deadlines = new RoundDeadlines(timeout);
        QuorumRound<String> waiting = round(timeout);
        assertTrue(waiting.allSent());
        deadlines.watch(waiting);
        List<QuorumRound<String>> rounds = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            QuorumRound<String> round = round(timeout);
            assertTrue(round.allSent());
            deadlines.watch(round);
            rounds.add(round);
        }
        for (QuorumRound<String> round : rounds) {
            round.onSuccess("answer");
        }
        assertEquals(1001, deadlines.size());
        assertEquals(1, deadlines.roundsHeld(), "decided rounds are not kept alive behind the waiting one");
        assertThrows(ExecutionException.class, () -> waiting.result().get(10, TimeUnit.SECONDS));
        for (QuorumRound<String> round : rounds) {
            assertEquals("answer", round.result().getNow(null));
        }
        assertEquals(0, deadlines.size(), "the sweep that failed the waiting round dropped the rest");
    }

    @Test
    void aRoundDecidedWhileSendingNeedsNoDeadline() {
        QuorumRound<String> round = round(TimeUnit.SECONDS.toNanos(1));
        round.onSuccess(null);
        assertFalse(round.result().isDone(), "not published before every replica was asked");
        assertFalse(round.allSent());
        assertTrue(round.result().isDone());
        assertNull(round.result().getNow("x"));
    }
}
