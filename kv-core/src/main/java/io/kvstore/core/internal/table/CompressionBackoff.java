package io.kvstore.core.internal.table;

/**
 * Which data blocks of a table being written are offered to its codec. After a block that compression
 * could not shrink enough, the next blocks are stored as they are without trying: one after the first
 * such block, then twice as many after each further one, up to {@link #MAX_SKIPPED}; a block that
 * compresses starts the count again. Values that never compress (random, encrypted or already
 * compressed bytes) then cost the codec about one block in {@code MAX_SKIPPED + 1} instead of every
 * block, and values that do compress lose nothing; where a table's values turn from one kind to the
 * other, at most {@code MAX_SKIPPED} blocks that would have compressed are stored as they are. What it
 * saves a compaction is measured in docs/TUNING.md.
 *
 * <p>REQUIRES: external synchronization (one per table writer).
 */
final class CompressionBackoff {
    /** The most blocks stored without trying between two attempts. */
    static final int MAX_SKIPPED = 32;
    /** Blocks still to store as they are before the next attempt. */
    private int toSkip;
    /** Blocks to skip after the next attempt that does not compress. */
    private int nextSkip = 1;

    /** Whether to offer the next block to the codec; each call is a block. */
    boolean tryNext() {
        if (toSkip > 0) {
            toSkip--;
            return false;
        }
        return true;
    }

    /** The block just offered compressed enough to be kept compressed. */
    void compressed() {
        nextSkip = 1;
    }

    /** The block just offered did not compress enough and is stored as it is. */
    void incompressible() {
        toSkip = nextSkip;
        nextSkip = Math.min(2 * nextSkip, MAX_SKIPPED);
    }
}
