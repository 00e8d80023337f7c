package io.kvstore.core;

import java.io.IOException;
import java.nio.file.Path;

/** Stored bytes failed a check (checksum, magic, length): names the file and the byte offset. */
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
