package io.kvstore.core.internal.log;

/**
 * Holds the calling thread's interrupt back around file I/O and sets it again afterwards: a {@link
 * java.nio.channels.FileChannel} that a thread with its interrupt set reads, writes, maps or forces is
 * closed for every thread, which would fail the store's writes until it is reopened for an interrupt
 * meant for one caller (a writer whose wait for a group commit was interrupted, say).
 *
 * <pre>{@code
 * boolean interrupted = HeldInterrupt.hold();
 * try {
 *     ... file I/O ...
 * } finally {
 *     HeldInterrupt.restore(interrupted);
 * }
 * }</pre>
 */
final class HeldInterrupt {
    private HeldInterrupt() {
    }

    /** Clears the calling thread's interrupt; returns whether it was set. */
    static boolean hold() {
        return Thread.interrupted();
    }

    /** Sets the calling thread's interrupt again if {@link #hold()} found it set. */
    static void restore(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
