package io.kvstore.cluster.internal.repair;

/**
 * What a repair run tells as it goes, for an operator to follow it: the exchanges it set out to make,
 * the trees each built and the entries it copied. Called from the exchange's executor threads, so an
 * implementation is thread-safe and quick; every method does nothing by default.
 */
public interface RepairProgress {
    /** Reports nothing. */
    RepairProgress NONE = new RepairProgress() {
    };

    /** The run is to make {@code exchanges} exchanges, each with one peer over one key interval. */
    default void planned(int exchanges) {
    }

    /** Both trees of an exchange are built, over {@code keys} entries together (a peer that does not say adds none). */
    default void treesBuilt(long keys) {
    }

    /** An exchange stored {@code entries} entries of {@code bytes} on the peer ({@code sent}) or on this node. */
    default void copied(boolean sent, long entries, long bytes) {
    }

    /** An exchange with {@code peer} ended, succeeded or not. */
    default void exchangeEnded(String peer, boolean succeeded) {
    }
}
