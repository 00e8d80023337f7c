package io.kvstore.core;

import java.io.IOException;

/**
 * A write refused because the store stopped taking writes after its disk failed: an fsync failed (a
 * full disk's included), or a write of data the store had accepted failed for a reason other than
 * space. Unlike a full disk ({@link InsufficientStorageException}) this does not pass by itself: after
 * a failed fsync the kernel may have dropped pages it had reported written, so nothing written since
 * could be promised durable. Reads go on; reopening the store (restarting the node) recovers every
 * acknowledged write from what reached the device. The message names the failure and its file.
 */
public final class WritesStoppedException extends IOException {
    private static final long serialVersionUID = 1L;

    public WritesStoppedException(String message, Throwable cause) {
        super(message, cause);
    }
}
