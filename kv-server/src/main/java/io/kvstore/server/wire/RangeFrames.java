package io.kvstore.server.wire;

import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayDeque;

/**
 * The body of the internal range route ({@code GET /internal/v0/entities}): a node's versions of a key
 * range, tombstones included, as a sequence of frames, all integers big-endian.
 *
 * <pre>
 * entry frame: 0x01, key length (int32, &gt;= 1), key bytes, timestamp (int64, &gt;= 0),
 *              flags (one byte: 0 a value, 1 a tombstone, 2 an expiring value), value length (int32, 0 for a
 *              tombstone), [expiry (int64, milliseconds since the epoch, &gt; 0): flags 2 only], value bytes
 * end frame:   0x00, after the last entry: the range is complete
 * </pre>
 *
 * A body that stops without the end frame is an incomplete range, however it stopped. A {@link Decoder}
 * takes the body in chunks as they arrive and refuses a malformed one with the node and the offset.
 */
public final class RangeFrames {
    static final byte ENTRY = 1;
    static final byte END = 0;
    private static final byte VALUE = 0;
    private static final byte TOMBSTONE = 1;
    private static final byte EXPIRING_VALUE = 2;
    /** Frame bytes around the key and the value, the expiry of an expiring value not counted. */
    static final int OVERHEAD = 1 + 4 + 8 + 1 + 4;
    private static final int EXPIRY_BYTES = 8;

    private RangeFrames() {
    }

    /** Appends {@code entry}'s frame to {@code out}. */
    public static Buffer append(Buffer out, Entry entry) {
        byte[] key = entry.key();
        out.appendByte(ENTRY).appendInt(key.length).appendBytes(key).appendLong(entry.timestamp());
        if (entry.isTombstone()) {
            return out.appendByte(TOMBSTONE).appendInt(0);
        }
        byte[] value = entry.value();
        if (entry.expires()) {
            return out.appendByte(EXPIRING_VALUE).appendInt(value.length).appendLong(entry.expiresAtMillis())
                    .appendBytes(value);
        }
        return out.appendByte(VALUE).appendInt(value.length).appendBytes(value);
    }

    /** The bytes of {@code entry}'s frame. */
    static int frameBytes(Entry entry) {
        if (entry.isTombstone()) {
            return OVERHEAD + entry.key().length;
        }
        return OVERHEAD + entry.key().length + entry.value().length + (entry.expires() ? EXPIRY_BYTES : 0);
    }

    public static Buffer end() {
        return Buffer.buffer(1).appendByte(END);
    }

    /**
     * Parses frames from chunks of a body. Entries are queued until taken; bytes of a frame cut between
     * chunks are kept until the rest arrives (so memory is the queue plus one frame).
     */
    public static final class Decoder {
        private final String node;
        private final int maxKeyBytes;
        private final int maxValueBytes;
        private final ArrayDeque<Entry> entries = new ArrayDeque<>();
        private Buffer pending = Buffer.buffer();
        private long offset;
        private int queuedBytes;
        private boolean ended;

        /** {@code node}: where the body comes from, for error messages. */
        public Decoder(String node, int maxKeyBytes, int maxValueBytes) {
            this.node = node;
            this.maxKeyBytes = maxKeyBytes;
            this.maxValueBytes = maxValueBytes;
        }

        /**
         * Parses every whole frame in what arrived so far.
         *
         * @throws IllegalStateException for a malformed frame or bytes after the end frame
         */
        public void feed(Buffer chunk) {
            if (ended && chunk.length() > 0) {
                throw malformed(offset, "bytes after the end frame");
            }
            pending = pending.length() == 0 ? chunk : pending.appendBuffer(chunk);
            int at = 0;
            while (at < pending.length() && !ended) {
                int consumed = frame(at);
                if (consumed == 0) {
                    break;
                }
                at += consumed;
            }
            if (ended && at < pending.length()) {
                throw malformed(offset, "bytes after the end frame");
            }
            if (at == pending.length()) {
                pending = Buffer.buffer();
            } else if (at > 0) {
                // Nothing is copied while no frame ends: a large value arriving in many chunks is
                // appended chunk by chunk, not copied again whole with each.
                pending = pending.getBuffer(at, pending.length());
            }
        }

        /** Decodes the frame at {@code at} of {@code pending}; returns its length, or 0 if it is not whole yet. */
        private int frame(int at) {
            int available = pending.length() - at;
            byte type = pending.getByte(at);
            if (type == END) {
                ended = true;
                offset += 1;
                return 1;
            }
            if (type != ENTRY) {
                throw malformed(offset, "frame type " + type);
            }
            if (available < 5) {
                return 0;
            }
            int keyLength = pending.getInt(at + 1);
            if (KeyLimit.refusal(keyLength, maxKeyBytes, "key") != null) {
                throw malformed(offset, "key length " + keyLength);
            }
            if (available < 1 + 4 + keyLength + 8 + 1 + 4) {
                return 0;
            }
            int p = at + 5 + keyLength;
            long timestamp = pending.getLong(p);
            byte flags = pending.getByte(p + 8);
            int valueLength = pending.getInt(p + 9);
            if (timestamp < 0) {
                throw malformed(offset, "timestamp " + timestamp);
            }
            if (flags != VALUE && flags != TOMBSTONE && flags != EXPIRING_VALUE) {
                throw malformed(offset, "flags " + flags);
            }
            if (valueLength < 0 || valueLength > maxValueBytes || (flags == TOMBSTONE && valueLength != 0)) {
                throw malformed(offset, "value length " + valueLength);
            }
            int expiryBytes = flags == EXPIRING_VALUE ? EXPIRY_BYTES : 0;
            int length = OVERHEAD + keyLength + expiryBytes + valueLength;
            if (available < length) {
                return 0;
            }
            byte[] key = pending.getBytes(at + 5, at + 5 + keyLength);
            int valueAt = p + 13 + expiryBytes;
            Entry entry;
            if (flags == TOMBSTONE) {
                entry = Entry.tombstone(key, timestamp);
            } else if (flags == EXPIRING_VALUE) {
                long expiresAtMillis = pending.getLong(p + 13);
                if (expiresAtMillis <= 0) {
                    throw malformed(offset, "expiry " + expiresAtMillis);
                }
                entry = Entry.value(key, pending.getBytes(valueAt, valueAt + valueLength), timestamp, expiresAtMillis);
            } else {
                entry = Entry.value(key, pending.getBytes(valueAt, valueAt + valueLength), timestamp);
            }
            entries.add(entry);
            queuedBytes += length;
            offset += length;
            return length;
        }

        private IllegalStateException malformed(long at, String what) {
            return new IllegalStateException("malformed range stream from " + node + " at offset " + at + ": " + what);
        }

        /** The next decoded entry, or null if none is queued. */
        public Entry peek() {
            return entries.peek();
        }

        /** Takes the next decoded entry. */
        public Entry poll() {
            Entry entry = entries.poll();
            if (entry != null) {
                queuedBytes -= frameBytes(entry);
            }
            return entry;
        }

        /** Frame bytes decoded and not taken yet. */
        public int queuedBytes() {
            return queuedBytes;
        }

        /** Whether the end frame arrived. */
        public boolean ended() {
            return ended;
        }

        /** Whether a frame has begun and not finished. */
        boolean midFrame() {
            return pending.length() > 0;
        }
    }
}
