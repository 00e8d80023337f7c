package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Read repair for one GET: remembers each replica's answer, and once the read is decided writes the
 * winning version (tombstones included) to every replica that answered with an older version or none,
 * late answers included.
 *
 * <p>In {@link ReadRepair#BLOCKING} mode, {@link #decide} answers only once the winner is on {@code ack}
 * replicas (those that answered with it plus those repaired), so a later quorum read meets it. Answers
 * that agree cost nothing more: no write, no wait. Two answers agree when they are the same version:
 * timestamp, tombstone flag and bytes (two coordinators may stamp different writes alike).
 *
 * <p>Answers arrive on any thread; a short lock guards the state. Writes are sent outside it.
 */
final class ReadRepairRound {
    private final ReplicaCoordinator coordinator;
    private final ReadRepair mode;
    private final int[] targets;
    private final int ack;
    private final Entry[] answers;
    private final boolean[] answered;
    private boolean decided;
    private Entry winner;
    /** Blocking mode only, while the winner is on fewer than {@code ack} replicas. */
    private CompletableFuture<Entry> repaired;
    private int holding;
    private int repairsOutstanding;

    ReadRepairRound(ReplicaCoordinator coordinator, ReadRepair mode, int[] targets, int ack) {
        this.coordinator = coordinator;
        this.mode = mode;
        this.targets = targets;
        this.ack = ack;
        this.answers = new Entry[targets.length];
        this.answered = new boolean[targets.length];
    }

    /** The replica at {@code position} of the targets answered; a late stale answer is repaired at once. */
    void answer(int position, Entry entry) {
        Entry repairWith;
        boolean counted;
        CompletableFuture<Entry> complete = null;
        synchronized (this) {
            answers[position] = entry;
            answered[position] = true;
            if (!decided) {
                return;
            }
            repairWith = winner;
            counted = repaired != null && !repaired.isDone();
            if (sameVersion(entry, winner)) {
                if (counted && ++holding >= ack) {
                    complete = repaired;
                }
                repairWith = null;
            } else if (counted) {
                repairsOutstanding++;
            }
        }
        if (complete != null) {
            complete.complete(repairWith == null ? winnerNow() : repairWith);
        } else if (repairWith != null) {
            repair(position, repairWith, counted);
        }
    }

    private synchronized Entry winnerNow() {
        return winner;
    }

    /**
     * The read decided on {@code merged}: returns the version to answer with, once it may be answered
     * (the newest of every answer so far; in blocking mode once it is on {@code ack} replicas).
     */
    CompletionStage<Entry> decide(Entry merged) {
        int stale = 0;
        int[] stalePositions;
        Entry chosen;
        synchronized (this) {
            decided = true;
            chosen = merged;
            for (int i = 0; i < answers.length; i++) {
                if (answered[i]) {
                    chosen = ReplicaCoordinator.newer(chosen, answers[i]);
                }
            }
            winner = chosen;
            stalePositions = new int[answers.length];
            for (int i = 0; i < answers.length; i++) {
                if (answered[i]) {
                    if (sameVersion(answers[i], chosen)) {
                        holding++;
                    } else {
                        stalePositions[stale++] = i;
                    }
                }
            }
            if (stale == 0) {
                return CompletableFuture.completedFuture(chosen);
            }
            if (mode == ReadRepair.BLOCKING && holding < ack) {
                repaired = new CompletableFuture<>();
                repairsOutstanding = stale;
            }
        }
        Entry result = chosen;
        CompletableFuture<Entry> waitFor;
        synchronized (this) {
            waitFor = repaired;
        }
        for (int i = 0; i < stale; i++) {
            repair(stalePositions[i], result, waitFor != null);
        }
        if (waitFor == null) {
            return CompletableFuture.completedFuture(result);
        }
        return waitFor.orTimeout(coordinator.timeoutNanos(), TimeUnit.NANOSECONDS).exceptionally(error -> {
            throw error instanceof TimeoutException
                    ? coordinator.notEnough("GET", result.key(), ack, holdingNow(), "read repair timed out", error)
                    : error instanceof RuntimeException ? (RuntimeException) error : new RuntimeException(error);
        });
    }

    private synchronized int holdingNow() {
        return holding;
    }

    private void repair(int position, Entry version, boolean counted) {
        coordinator.repair(targets[position], version).whenComplete((ok, error) -> {
            if (!counted) {
                return;
            }
            CompletableFuture<Entry> complete = null;
            NotEnoughReplicasException failure = null;
            synchronized (this) {
                repairsOutstanding--;
                if (error == null) {
                    holding++;
                }
                if (repaired.isDone()) {
                    return;
                }
                if (holding >= ack) {
                    complete = repaired;
                } else if (repairsOutstanding == 0) {
                    failure = coordinator.notEnough("GET", version.key(), ack, holding,
                            "read repair reached too few replicas", error);
                }
            }
            if (complete != null) {
                complete.complete(version);
            } else if (failure != null) {
                repaired.completeExceptionally(failure);
            }
        });
    }

    /** Same version: same timestamp, same tombstone flag, same bytes; absent only matches absent. */
    static boolean sameVersion(Entry a, Entry b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Entry.compareVersions(a, b) == 0;
    }
}
