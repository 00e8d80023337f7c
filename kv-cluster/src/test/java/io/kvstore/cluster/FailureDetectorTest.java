package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailureDetectorTest {
    private final AtomicLong wall = new AtomicLong(1_000);
    private final List<String> nodes = List.of("a", "b", "c");

    /** A replica whose ping fails while {@code down} is set. */
    private static final class Pingable implements Replica {
        final AtomicBoolean down = new AtomicBoolean();

        @Override
        public CompletionStage<Entry> get(byte[] key) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> upsert(Entry entry) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> ping() {
            return down.get() ? CompletableFuture.failedFuture(new IOException("connection refused"))
                    : CompletableFuture.completedFuture(null);
        }
    }

    private FailureDetector detector(List<? extends Replica> replicas) {
        return new FailureDetector(nodes, new ArrayList<>(replicas), 0, Duration.ofMillis(10), wall::get);
    }

    @Test
    void aClosedDetectorJudgesNoNodeDown() {
        FailureDetector detector = detector(List.of(new Pingable(), new Pingable(), new Pingable()));
        detector.close();
        for (int i = 0; i < 2 * FailureDetector.FAILURES_TO_DOWN; i++) {
            detector.failed(1, new IllegalStateException("Client is closed"));
        }
        assertEquals(PeerState.UP, detector.state(1), "the failures of a node that stops are its own");
    }

    @Test
    void aNodeIsDownAfterFailuresInARowAndUpAtItsFirstAnswer() {
        FailureDetector detector = detector(List.of(new Pingable(), new Pingable(), new Pingable()));
        List<Integer> ups = new ArrayList<>();
        detector.onUp(ups::add);
        for (int i = 1; i < FailureDetector.FAILURES_TO_DOWN; i++) {
            detector.failed(1, new IOException("timeout"));
            assertEquals(PeerState.UP, detector.state(1), "one failure is not enough");
        }
        detector.answered(1);
        for (int i = 1; i < FailureDetector.FAILURES_TO_DOWN; i++) {
            detector.failed(1, new IOException("timeout"));
        }
        assertEquals(PeerState.UP, detector.state(1), "an answer resets the count");
        wall.set(2_000);
        detector.failed(1, new IOException("timeout"));
        assertEquals(PeerState.DOWN, detector.state(1));
        assertEquals(2_000, detector.downSinceMillis(1));
        detector.failed(1, new IOException("timeout"));
        assertEquals(2_000, detector.downSinceMillis(1), "still down since the first time");
        wall.set(3_000);
        detector.answered(1);
        detector.answered(1);
        assertEquals(PeerState.UP, detector.state(1));
        assertEquals(3_000, detector.lastSeenMillis(1));
        assertEquals(List.of(1), ups, "one announcement per change of state");
    }

    @Test
    void aDrainingNodeIsLeftOutAtOnceAndOnlyAProbeBringsItBack() throws Exception {
        Pingable b = new Pingable();
        try (FailureDetector detector = detector(List.of(new Pingable(), b, new Pingable()))) {
            List<Integer> ups = new ArrayList<>();
            detector.onUp(ups::add);
            detector.draining(1);
            assertEquals(PeerState.DRAINING, detector.state(1), "no failure needed: it said so");
            assertTrue(detector.isDraining(1));
            assertEquals(1_000, detector.downSinceMillis(1));
            detector.answered(1);
            assertEquals(PeerState.DRAINING, detector.state(1), "an answer to a request sent before does not bring it back");
            detector.draining(0);
            assertEquals(PeerState.UP, detector.state(0), "the node itself never drains in its own eyes");

            b.down.set(true); // a draining node fails its probes until it serves again
            CountDownLatch up = new CountDownLatch(1);
            detector.onUp(node -> up.countDown());
            detector.start();
            for (int i = 0; i < 2 * FailureDetector.FAILURES_TO_DOWN; i++) {
                detector.failed(1, new IOException("503 draining"));
            }
            assertEquals(PeerState.DRAINING, detector.state(1));
            b.down.set(false);
            assertTrue(up.await(10, TimeUnit.SECONDS), "the restarted node answered a probe");
            assertEquals(PeerState.UP, detector.state(1));
            assertEquals(List.of(1), ups, "hint replay is told once");

            detector.draining(2);
            detector.serving(2);
            assertEquals(PeerState.UP, detector.state(2), "a node that says it serves again is up at once");
            assertEquals(List.of(1, 2), ups, "and its hints replay");
        }
    }

    @Test
    void theNodeItselfIsNeverDown() {
        FailureDetector detector = detector(List.of(new Pingable(), new Pingable(), new Pingable()));
        for (int i = 0; i < 10; i++) {
            detector.failed(0, new IOException("disk"));
        }
        assertEquals(PeerState.UP, detector.state(0));
    }

    @Test
    void probesFindANodeDownAndBackUpWithoutAnyTraffic() throws Exception {
        Pingable b = new Pingable();
        b.down.set(true);
        try (FailureDetector detector = detector(List.of(new Pingable(), b, new Pingable()))) {
            CountDownLatch up = new CountDownLatch(1);
            detector.onUp(node -> up.countDown());
            detector.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (detector.state(1) != PeerState.DOWN && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(PeerState.DOWN, detector.state(1));
            assertEquals(PeerState.UP, detector.state(2));
            b.down.set(false);
            assertTrue(up.await(10, TimeUnit.SECONDS), "the probe saw it back");
        }
    }
}
