package io.kvstore.cluster.internal.metadata;

import java.util.Objects;

/** What a proposer asks an acceptor about one epoch: the two phases of Paxos. */
public sealed interface EpochRequest {
    /** The epoch whose value is being decided. */
    long epoch();

    /** The proposer's ballot. */
    Ballot ballot();

    /** Phase 1: promise to accept nothing below {@code ballot}, and say what was accepted so far. */
    record Prepare(long epoch, Ballot ballot) implements EpochRequest {
        public Prepare {
            Objects.requireNonNull(ballot, "ballot");
        }
    }

    /** Phase 2: accept {@code value} at {@code ballot} unless a higher ballot was promised. */
    record Accept(long epoch, Ballot ballot, byte[] value) implements EpochRequest {
        public Accept {
            Objects.requireNonNull(ballot, "ballot");
            Objects.requireNonNull(value, "value");
        }
    }
}
