package io.kvstore.core.util;

import java.io.IOException;
import java.nio.file.Path;

/** Stored bytes fail a checksum or a structural check; names the file and the byte offset. */
public final class CorruptionException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String what) {
        super("corruption in " + file + " at offset " + offset + ": " + what);
        this.file = file;
        this.offset = offset;
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}
