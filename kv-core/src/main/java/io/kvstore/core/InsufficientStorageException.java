package io.kvstore.core;

import io.kvstore.core.internal.util.DiskErrors;
import java.io.IOException;

/**
 * A write refused because the store's disk is full: it has less free space than the store's floor
 * ({@link DaoOptions#minFreeBytes()}), or the write-ahead log found no room to grow. Nothing of the
 * write was stored. Reads go on, and writes are taken again by themselves once space is freed; the
 * message says what is short.
 */
public final class InsufficientStorageException extends IOException {
    private static final long serialVersionUID = 1L;

    public InsufficientStorageException(String message) {
        super(message);
    }

    /** A refusal caused by {@code cause}: the failed write or creation that found the disk full. */
    public InsufficientStorageException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * {@code failure} as a refusal saying {@code message}, if it is a write or a creation that found no
     * space (never the failure of an fsync, however it is worded); else {@code failure} itself. For the
     * small files kept beside a store (a node's map, its clock lease), so that a full disk is told from
     * a failing one as the store tells them.
     */
    public static IOException ifNoSpace(IOException failure, String message) {
        if (failure instanceof InsufficientStorageException || !DiskErrors.isNoSpace(failure)) {
            return failure;
        }
        return new InsufficientStorageException(message + ": " + failure.getMessage(), failure);
    }
}
