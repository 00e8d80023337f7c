package io.kvstore.cluster.internal.metadata;

import io.kvstore.cluster.internal.Scheduler;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Proposes the value of one epoch to its metadata group: single-decree Paxos. Phase 1 gets a majority's
 * promise for a fresh ballot and learns the highest-ballot value any of them accepted; phase 2 asks them
 * to accept that value, or the proposer's own if none was accepted. A value is chosen once a majority
 * accepted it at one ballot, and then no other value can be: any later ballot's phase 1 meets one of
 * that majority and carries the value on. A round that meets a higher ballot, or too few answers, is
 * tried again after a random pause (two proposers do not keep outbidding each other) until the deadline.
 *
 * <p>Asynchronous and free of threads of its own: replies arrive through the {@link EpochTransport},
 * timeouts and pauses through the {@link Scheduler}, so that a simulation drives it deterministically.
 */
public final class EpochProposer {
    /** How a proposal ended. */
    public sealed interface Outcome {
        /** Epoch {@code epoch} is decided with {@code value}: the proposer's own value if {@code ours}. */
        record Chosen(long epoch, byte[] value, boolean ours) implements Outcome {
        }

        /** A later epoch than the one proposed is decided already, with {@code value}. */
        record Superseded(long epoch, byte[] value) implements Outcome {
        }

        /**
         * No majority of the group could be had before the deadline; {@code reason} says what was heard. If
         * {@code valueSent}, some members may have accepted the value: it may still be chosen later
         * (finished by whoever meets it), so the outcome is unknown rather than a refusal.
         */
        record NoQuorum(String reason, boolean valueSent) implements Outcome {
        }
    }

    /** Rounds a proposer may use within one millisecond of its start before it runs into a later start's. */
    private static final int ROUND_COUNTER_BITS = 20;

    private final String self;
    private final EpochTransport transport;
    private final Scheduler scheduler;
    private final LongSupplier clockMillis;
    private final RandomGenerator random;
    private final long phaseTimeoutMillis;
    private final IntUnaryOperator quorum;
    /**
     * The highest round this proposer used or saw refused: its next ballot is above it. It starts at the
     * clock's milliseconds shifted past a counter's bits, so that a proposer restarted on the same node never
     * reuses a ballot of its earlier life (one ballot carrying two values could let two values be chosen),
     * unless the clock was stepped back across the restart.
     */
    private final AtomicLong highestRound;

    /**
     * @param self               this node's URL, which makes its ballots unique
     * @param phaseTimeoutMillis how long a phase waits for a majority before the round is tried again
     */
    public EpochProposer(String self, EpochTransport transport, Scheduler scheduler, LongSupplier clockMillis,
                         RandomGenerator random, long phaseTimeoutMillis) {
        this(self, transport, scheduler, clockMillis, random, phaseTimeoutMillis, size -> size / 2 + 1);
    }

    /** With the number of accepting members that decides, given the group's size: tests plant a wrong one. */
    EpochProposer(String self, EpochTransport transport, Scheduler scheduler, LongSupplier clockMillis,
                  RandomGenerator random, long phaseTimeoutMillis, IntUnaryOperator quorum) {
        if (phaseTimeoutMillis < 1) {
            throw new IllegalArgumentException("phase timeout must be >= 1 ms, got " + phaseTimeoutMillis);
        }
        this.self = self;
        this.transport = transport;
        this.scheduler = scheduler;
        this.clockMillis = clockMillis;
        this.random = random;
        this.phaseTimeoutMillis = phaseTimeoutMillis;
        this.quorum = quorum;
        this.highestRound = new AtomicLong(Math.max(0, clockMillis.getAsLong()) << ROUND_COUNTER_BITS);
    }

    /**
     * Proposes {@code value} for {@code epoch} to {@code group} and completes with the outcome, within
     * {@code timeoutMillis} (a round under way then still ends first). Never completes exceptionally.
     */
    public CompletionStage<Outcome> propose(long epoch, MetadataGroup group, byte[] value, long timeoutMillis) {
        Attempt attempt = new Attempt(epoch, group, value.clone(), clockMillis.getAsLong() + timeoutMillis);
        attempt.start();
        return attempt.result;
    }

    /** One proposal: its rounds, each a phase 1 and, with a majority's promise, a phase 2. */
    private final class Attempt {
        private final long epoch;
        private final MetadataGroup group;
        private final byte[] own;
        private final long deadlineMillis;
        private final int needed;
        private final CompletableFuture<Outcome> result = new CompletableFuture<>();
        /** Counts rounds; answers of an earlier round are ignored. */
        private int round;
        private int stage;
        private Ballot ballot;
        private int answered;
        private int granted;
        private Ballot highestAccepted;
        private byte[] proposed;
        private String lastProblem = "no answer";
        /** Whether any round reached phase 2, so that some member may hold the value. */
        private boolean valueSent;

        Attempt(long epoch, MetadataGroup group, byte[] own, long deadlineMillis) {
            this.epoch = epoch;
            this.group = group;
            this.own = own;
            this.deadlineMillis = deadlineMillis;
            this.needed = quorum.applyAsInt(group.members().size());
        }

        synchronized void start() {
            if (result.isDone()) {
                return;
            }
            if (clockMillis.getAsLong() >= deadlineMillis) {
                result.complete(new Outcome.NoQuorum("no majority of the metadata group " + group.members() + " (" + needed
                        + " of " + group.members().size() + ") for epoch " + epoch + "; last: " + lastProblem, valueSent));
                return;
            }
            int current = ++round;
            ballot = new Ballot(highestRound.incrementAndGet(), self);
            stage = 1;
            answered = 0;
            granted = 0;
            highestAccepted = null;
            proposed = null;
            EpochRequest prepare = new EpochRequest.Prepare(epoch, ballot);
            scheduler.schedule(phaseTimeoutMillis, () -> timedOut(current, 1));
            sendToAll(current, 1, prepare);
        }

        /** Sends {@code request} to every member, unless an answer given at once ends the phase first. */
        private void sendToAll(int current, int inStage, EpochRequest request) {
            for (String acceptor : group.members()) {
                if (current != round || stage != inStage || result.isDone()) {
                    return;
                }
                CompletionStage<EpochReply> reply;
                try {
                    reply = transport.send(acceptor, request);
                } catch (RuntimeException e) {
                    reply = CompletableFuture.failedFuture(e);
                }
                reply.whenComplete((answer, error) -> answered(current, inStage, acceptor, answer, error));
            }
        }

        private synchronized void answered(int current, int sentInStage, String acceptor, EpochReply answer, Throwable error) {
            if (current != round || sentInStage != stage || result.isDone()) {
                return;
            }
            answered++;
            if (error != null) {
                lastProblem = acceptor + ": " + error.getMessage();
            } else if (answer instanceof EpochReply.Decided decided) {
                decided(decided);
                return;
            } else if (answer instanceof EpochReply.Refused refused) {
                highestRound.accumulateAndGet(refused.promised().round(), Math::max);
                lastProblem = acceptor + " promised the higher ballot " + refused.promised();
            } else if (stage == 1 && answer instanceof EpochReply.Promise promise) {
                granted++;
                if (promise.accepted() != null && promise.accepted().atLeast(highestAccepted)) {
                    highestAccepted = promise.accepted();
                    proposed = promise.value();
                }
            } else if (stage == 2 && answer instanceof EpochReply.Accepted) {
                granted++;
            } else {
                lastProblem = acceptor + " answered " + answer + " in phase " + stage;
            }
            if (granted >= needed) {
                if (stage == 1) {
                    acceptPhase(current);
                } else {
                    result.complete(new Outcome.Chosen(epoch, proposed, Arrays.equals(proposed, own)));
                }
            } else if (answered == group.members().size()) {
                again();
            }
        }

        private void acceptPhase(int current) {
            stage = 2;
            answered = 0;
            granted = 0;
            if (proposed == null) {
                proposed = own;
            }
            valueSent = true;
            scheduler.schedule(phaseTimeoutMillis, () -> timedOut(current, 2));
            sendToAll(current, 2, new EpochRequest.Accept(epoch, ballot, proposed));
        }

        private void decided(EpochReply.Decided decided) {
            if (decided.epoch() == epoch) {
                result.complete(new Outcome.Chosen(epoch, decided.value(), Arrays.equals(decided.value(), own)));
            } else {
                result.complete(new Outcome.Superseded(decided.epoch(), decided.value()));
            }
        }

        private synchronized void timedOut(int current, int inStage) {
            if (current == round && inStage == stage && !result.isDone()) {
                lastProblem = "only " + granted + " of " + group.members().size() + " granted phase " + stage + " within "
                        + phaseTimeoutMillis + " ms; " + lastProblem;
                again();
            }
        }

        /** Abandons this round and starts another after a random pause. */
        private void again() {
            round++;
            long pause = phaseTimeoutMillis / 4 + random.nextLong(phaseTimeoutMillis);
            scheduler.schedule(pause, this::start);
        }
    }
}
