package io.kvstore.core;

import java.io.IOException;

/**
 * A write refused because the store's disk has less free space than its floor
 * ({@link DaoOptions#minFreeBytes()}): nothing of it was stored. Reads go on, and writes are taken
 * again by themselves once space is back above the floor; the message says how much is free.
 */
public final class InsufficientStorageException extends IOException {
    private static final long serialVersionUID = 1L;

    public InsufficientStorageException(String message) {
        super(message);
    }
}
