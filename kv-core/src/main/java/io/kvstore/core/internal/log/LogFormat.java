package io.kvstore.core.internal.log;

/** Constants of the write-ahead log format; docs/FORMAT.md describes it byte by byte. */
final class LogFormat {
    /** "KVWL" read as a little-endian int: the first 4 bytes of every log file. */
    static final int MAGIC = 0x4C57564B;
    /** The version written; version 1 logs (without {@link #KIND_EXPIRING_VALUE}) are read as well. */
    static final int VERSION = 2;
    static final int V1 = 1;
    static final int FILE_HEADER = 8;
    /** crc32c u32 + payload length u32. */
    static final int RECORD_HEADER = 8;
    /** kind u8 + timestamp i64 + key length u32. */
    static final int PAYLOAD_HEADER = 13;
    static final byte KIND_VALUE = 0;
    static final byte KIND_TOMBSTONE = 1;
    /** A value with an expiry: {@code expiresAt:i64} follows the key, then the value (version 2). */
    static final byte KIND_EXPIRING_VALUE = 2;
    /** Longest payload a writer produces; a longer length field can only be corruption. */
    static final int MAX_PAYLOAD = Integer.MAX_VALUE - 64;

    private LogFormat() {
    }
}
