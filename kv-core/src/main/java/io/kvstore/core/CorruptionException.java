package io.kvstore.core;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed a check (checksum, magic, length), or could not be read at all (an I/O error of
 * the device, which the store treats as the same damage): names the file and the byte offset.
 */
public class CorruptionException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String what) {
        super("corruption in " + file + (offset < 0 ? "" : " at offset " + offset) + ": " + what);
        this.file = file;
        this.offset = offset;
    }

    /** For a subclass that words its own message about damage in {@code file} at {@code offset}. */
    protected CorruptionException(String message, Path file, long offset) {
        super(message);
        this.file = file;
        this.offset = offset;
    }

    public Path file() {
        return file;
    }

    /** The byte offset of the damage in {@link #file()}, or -1 where it is not known. */
    public long offset() {
        return offset;
    }
}
