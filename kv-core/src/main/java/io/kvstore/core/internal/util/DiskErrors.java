package io.kvstore.core.internal.util;

import io.kvstore.core.InsufficientStorageException;

import java.io.IOException;
import java.io.SyncFailedException;
import java.nio.file.Path;

/**
 * Tells a full disk from a failing one in what {@code java.nio} reports. A full disk met while space
 * is taken (a write that extends a file, a file created) leaves what was written before intact, so the
 * store refuses writes until space returns; any failure of an fsync, ENOSPC included, may have dropped
 * pages the store already counted on (Linux reports a failed write-back to one fsync and then clears
 * it), so the engine wraps it in a {@link SyncFailedException}, which this never counts as a full disk.
 */
public final class DiskErrors {
    /** How Linux words ENOSPC and EDQUOT in the exceptions of {@code java.nio}, which has no type for them. */
    private static final String[] NO_SPACE = {"No space left on device", "Disk quota exceeded"};

    private DiskErrors() {
    }

    /** Whether {@code failure} is a write or creation that found no space: true of no fsync's failure. */
    public static boolean isNoSpace(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailedException) {
                return false; // however it is worded where it is wrapped
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InsufficientStorageException) {
                return true;
            }
            String message = t.getMessage();
            if (t instanceof IOException && message != null) {
                for (String words : NO_SPACE) {
                    if (message.contains(words)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * {@code failure}'s message and those of its causes that it does not already hold, so that a reason
     * reported once names the operation, the file and the error the system gave.
     */
    public static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (text.indexOf(message) < 0) {
                text.append(text.length() == 0 ? "" : ": ").append(message);
            }
        }
        return text.toString();
    }

    /** {@code failure} of {@code what} (naming a file), with its message, unless its message names the file already. */
    public static IOException naming(String what, Path file, IOException failure) {
        String message = failure.getMessage();
        if (message != null && message.contains(file.toString())) {
            return failure;
        }
        return new IOException(what + " of " + file + " failed: " + message, failure);
    }

    /** The failure of an fsync of {@code file}: never taken for a full disk, and naming the file. */
    public static SyncFailedException fsyncFailed(Path file, IOException cause) {
        if (cause instanceof SyncFailedException already) {
            return already;
        }
        SyncFailedException failed = new SyncFailedException("fsync of " + file + " failed: " + cause.getMessage());
        failed.initCause(cause);
        return failed;
    }
}
