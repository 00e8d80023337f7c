package io.kvstore.server.wire;

import io.kvstore.cluster.internal.EntryCodec;
import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayDeque;

/**
 * The body of the internal range route ({@code GET /internal/v0/entities}): a node's versions of a key
 * range, tombstones included, as a sequence of frames, all integers big-endian.
 *
 * <pre>
 * entry frame: 0x01, then the entry in {@link EntryCodec}'s frame framing: key length (int32, &gt;= 1), key bytes,
 *              timestamp (int64, &gt;= 0), flags (one byte, the entry's kind: 0 a value, 1 a tombstone, 2 an
 *              expiring value), value length (int32, 0 for a tombstone), [expiry (int64, milliseconds since
 *              the epoch, &gt; 0): flags 2 only], value bytes
 * end frame:   0x00, after the last entry: the range is complete
 * </pre>
 *
 * A body that stops without the end frame is an incomplete range, however it stopped. A {@link Decoder}
 * takes the body in chunks as they arrive and refuses a malformed one with the node and the offset.
 */
public final class RangeFrames {
    static final byte ENTRY = 1;
    static final byte END = 0;

    private RangeFrames() {
    }

    /** Appends {@code entry}'s frame to {@code out}. */
    public static Buffer append(Buffer out, Entry entry) {
        EntryCodec.writeFrame(new BufferOutput(out.appendByte(ENTRY)), entry);
        return out;
    }

    /** The bytes of {@code entry}'s frame. */
    static int frameBytes(Entry entry) {
        return 1 + EntryCodec.frameBytes(entry);
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
            byte type = pending.getByte(at);
            if (type == END) {
                ended = true;
                offset += 1;
                return 1;
            }
            if (type != ENTRY) {
                throw malformed(offset, "frame type " + type);
            }
            FrameInput in = new FrameInput(at + 1);
            Entry entry;
            try {
                entry = EntryCodec.readFrame(in);
            } catch (NotWhole e) {
                return 0;
            }
            int length = in.position - at;
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

        /**
         * The frame at a position of {@code pending}: each length is checked against the limits as soon as
         * it is read, and a read past what arrived is {@link NotWhole}.
         */
        private final class FrameInput implements EntryCodec.Input {
            private int position;

            FrameInput(int position) {
                this.position = position;
            }

            /** The position of the next {@code bytes} bytes, which it moves past. */
            private int take(int bytes) {
                if (pending.length() - position < bytes) {
                    throw NotWhole.INSTANCE;
                }
                int at = position;
                position += bytes;
                return at;
            }

            @Override
            public byte readByte() {
                return pending.getByte(take(1));
            }

            @Override
            public int readInt() {
                return pending.getInt(take(4));
            }

            @Override
            public long readLong() {
                return pending.getLong(take(8));
            }

            @Override
            public byte[] readKey() {
                int length = readInt();
                if (KeyLimit.refusal(length, maxKeyBytes, "key") != null) {
                    throw malformed("key length " + length);
                }
                return bytes(length);
            }

            @Override
            public byte[] readValue(int length) {
                if (length < 0 || length > maxValueBytes) {
                    throw malformed("value length " + length);
                }
                return bytes(length);
            }

            private byte[] bytes(int length) {
                int at = take(length);
                return pending.getBytes(at, at + length);
            }

            @Override
            public RuntimeException malformed(String problem) {
                return Decoder.this.malformed(offset, problem);
            }
        }

        /** Whether a frame has begun and not finished. */
        boolean midFrame() {
            return pending.length() > 0;
        }
    }

    /** A frame that has not arrived whole: the decoder waits for more. */
    private static final class NotWhole extends RuntimeException {
        static final NotWhole INSTANCE = new NotWhole();

        private NotWhole() {
            super(null, null, false, false);
        }
    }
}
