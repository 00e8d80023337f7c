package io.kvstore.core;

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
}
