package io.kvstore.core.internal.log;

import java.io.IOException;

/**
 * Runs file I/O with the calling thread's interrupt held back, then restores it: a {@link
 * java.nio.channels.FileChannel} that a thread with its interrupt set reads, writes, maps or forces is
 * closed for every thread, which would fail the store's writes until it is reopened for an interrupt
 * meant for one caller (a writer whose wait for a group commit was interrupted, say).
 */
final class HeldInterrupt {
    private HeldInterrupt() {
    }

    /** File I/O that returns a value. */
    @FunctionalInterface
    interface Io<T> {
        T run() throws IOException;
    }

    /** Runs {@code io} with the interrupt cleared, setting it again afterwards if it was set. */
    static <T> T run(Io<T> io) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return io.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
