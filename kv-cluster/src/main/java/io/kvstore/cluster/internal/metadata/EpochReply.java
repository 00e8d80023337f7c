package io.kvstore.cluster.internal.metadata;

import java.util.Objects;

/** An acceptor's answer to an {@link EpochRequest}. */
public sealed interface EpochReply {
    /**
     * The promise of phase 1, with the highest-ballot value this acceptor accepted for the epoch
     * ({@code accepted} and {@code value} both null if none).
     */
    record Promise(Ballot accepted, byte[] value) implements EpochReply {
        public Promise {
            if ((accepted == null) != (value == null)) {
                throw new IllegalArgumentException("an accepted value needs its ballot and a ballot its value");
            }
        }
    }

    /** Phase 2 done: the value was accepted at the request's ballot. */
    record Accepted() implements EpochReply {
    }

    /** Refused: this acceptor promised {@code promised}, a higher ballot. */
    record Refused(Ballot promised) implements EpochReply {
        public Refused {
            Objects.requireNonNull(promised, "promised");
        }
    }

    /**
     * The epoch asked about is decided already: this acceptor's node committed {@code epoch} (the
     * requested one or a later one) with {@code value}.
     */
    record Decided(long epoch, byte[] value) implements EpochReply {
        public Decided {
            Objects.requireNonNull(value, "value");
        }
    }
}
