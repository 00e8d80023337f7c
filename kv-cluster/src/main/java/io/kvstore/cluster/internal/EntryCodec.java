package io.kvstore.cluster.internal;

import io.kvstore.core.Entry;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An {@link Entry} in every form it takes outside the store: one representation of its fields (key,
 * value or tombstone, timestamp, expiry: the {@code Entry} itself), one convention for the tombstone and
 * the expiry, and the few framings the formats need. Versions of one key are ranked by one rule,
 * {@link Entry#compareVersions}, wherever they come from.
 *
 * <p>The convention, whatever the framing:
 * <ul>
 *   <li>a timestamp is a non-negative 64-bit integer;
 *   <li>a tombstone has no value and no expiry;
 *   <li>an expiry is milliseconds since the epoch, positive; a value that never expires has none, or
 *       {@link Entry#NEVER} in a framing that always carries one;
 *   <li>where a framing names what an entry is in a byte, the byte is its {@linkplain #kind kind}:
 *       {@link #VALUE}, {@link #TOMBSTONE} or {@link #EXPIRING_VALUE}, and only an expiring value
 *       carries an expiry.
 * </ul>
 *
 * <p>The framings, integers big-endian:
 * <pre>
 * body  (repair and batched bodies): key length (int32), key, timestamp (int64),
 *       value length (int32, {@link #TOMBSTONE_LENGTH} for a tombstone), [value, expiry (int64): values only]
 * frame (a range frame, after its type byte): key length (int32), key, timestamp (int64), kind (byte),
 *       value length (int32, 0 for a tombstone), [expiry (int64): an expiring value only], value
 * hint  (a hint record's value): kind (byte), timestamp (int64), [expiry (int64): an expiring value only],
 *       value (to the end)
 * </pre>
 * The internal entity route carries the same fields as text: the method or a header says tombstone, the
 * timestamp and the expiry are decimals, and only an expiring value has an expiry.
 *
 * <p>Reading checks every field: a malformed one is the reader's {@link Input#malformed} naming it.
 */
public final class EntryCodec {
    /** A value that never expires. */
    public static final byte VALUE = 0;
    public static final byte TOMBSTONE = 1;
    /** A value with an expiry. */
    public static final byte EXPIRING_VALUE = 2;
    /** The value length of a tombstone in the body framing. */
    public static final int TOMBSTONE_LENGTH = -1;
    /** Bytes of a frame around its key and value, the expiry of an expiring value not counted. */
    public static final int FRAME_OVERHEAD = 4 + 8 + 1 + 4;
    public static final int EXPIRY_BYTES = 8;
    /** Bytes of a hint record besides its value, the expiry of an expiring value not counted. */
    public static final int HINT_OVERHEAD = 1 + 8;

    private EntryCodec() {
    }

    /** Where a framing writes to. */
    public interface Output {
        void writeByte(byte value);

        void writeInt(int value);

        void writeLong(long value);

        void writeBytes(byte[] bytes);
    }

    /** Where a framing reads from; it checks lengths against what is there and against its limits. */
    public interface Input {
        byte readByte();

        int readInt();

        long readLong();

        /** A key: its length (int32), checked against the reader's limit, then its bytes. */
        byte[] readKey();

        /** The {@code length} bytes of a value, a length the reader refuses if negative or over its limit. */
        byte[] readValue(int length);

        /** The failure to throw for a body that breaks the format, naming what is wrong. */
        RuntimeException malformed(String problem);
    }

    // ---- the convention

    /** What {@code entry} is: {@link #VALUE}, {@link #TOMBSTONE} or {@link #EXPIRING_VALUE}. */
    public static byte kind(Entry entry) {
        return entry.isTombstone() ? TOMBSTONE : entry.expires() ? EXPIRING_VALUE : VALUE;
    }

    /** Whether an entry of {@code kind} carries an expiry. */
    public static boolean carriesExpiry(byte kind) {
        return kind == EXPIRING_VALUE;
    }

    /** What is wrong with an entry's kind and timestamp as a form carries them, or {@code null} if nothing. */
    public static String refusal(byte kind, long timestamp) {
        if (kind != VALUE && kind != TOMBSTONE && kind != EXPIRING_VALUE) {
            return "flags " + kind;
        }
        return timestamp < 0 ? "negative timestamp " + timestamp : null;
    }

    /** What is wrong with an expiring value's expiry, or {@code null} if nothing: it must be positive. */
    public static String expiryRefusal(long expiresAtMillis) {
        return expiresAtMillis <= 0 ? "non-positive expiry " + expiresAtMillis : null;
    }

    /**
     * The entry of fields that {@link #refusal} and {@link #expiryRefusal} accept: {@code value} and
     * {@code expiresAtMillis} are not looked at where {@code kind} has none.
     */
    public static Entry entry(byte[] key, byte kind, long timestamp, long expiresAtMillis, byte[] value) {
        return switch (kind) {
            case TOMBSTONE -> Entry.tombstone(key, timestamp);
            case EXPIRING_VALUE -> Entry.value(key, value, timestamp, expiresAtMillis);
            default -> Entry.value(key, value, timestamp);
        };
    }

    private static void check(Input in, String refusal) {
        if (refusal != null) {
            throw in.malformed(refusal);
        }
    }

    // ---- body: repair and batched bodies

    public static void writeBody(Output out, Entry entry) {
        writeKey(out, entry.key());
        out.writeLong(entry.timestamp());
        if (entry.isTombstone()) {
            out.writeInt(TOMBSTONE_LENGTH);
        } else {
            out.writeInt(entry.value().length);
            out.writeBytes(entry.value());
            out.writeLong(entry.expiresAtMillis());
        }
    }

    public static Entry readBody(Input in) {
        byte[] key = in.readKey();
        long timestamp = in.readLong();
        int length = in.readInt();
        check(in, refusal(length == TOMBSTONE_LENGTH ? TOMBSTONE : VALUE, timestamp));
        if (length == TOMBSTONE_LENGTH) {
            return Entry.tombstone(key, timestamp);
        }
        byte[] value = in.readValue(length);
        long expiresAtMillis = in.readLong();
        check(in, expiryRefusal(expiresAtMillis));
        return Entry.value(key, value, timestamp, expiresAtMillis);
    }

    // ---- frame: range frames

    public static void writeFrame(Output out, Entry entry) {
        writeKey(out, entry.key());
        out.writeLong(entry.timestamp());
        byte kind = kind(entry);
        out.writeByte(kind);
        if (kind == TOMBSTONE) {
            out.writeInt(0);
            return;
        }
        out.writeInt(entry.value().length);
        if (carriesExpiry(kind)) {
            out.writeLong(entry.expiresAtMillis());
        }
        out.writeBytes(entry.value());
    }

    /** The bytes of {@code entry}'s frame. */
    public static int frameBytes(Entry entry) {
        if (entry.isTombstone()) {
            return FRAME_OVERHEAD + entry.key().length;
        }
        return FRAME_OVERHEAD + entry.key().length + entry.value().length + (entry.expires() ? EXPIRY_BYTES : 0);
    }

    /** Reads a frame; each field is checked as soon as it is read. */
    public static Entry readFrame(Input in) {
        byte[] key = in.readKey();
        long timestamp = in.readLong();
        byte kind = in.readByte();
        check(in, refusal(kind, timestamp));
        int length = in.readInt();
        if (kind == TOMBSTONE) {
            check(in, length == 0 ? null : "value length " + length);
            return Entry.tombstone(key, timestamp);
        }
        long expiresAtMillis = Entry.NEVER;
        if (carriesExpiry(kind)) {
            expiresAtMillis = in.readLong();
            check(in, expiryRefusal(expiresAtMillis));
        }
        return entry(key, kind, timestamp, expiresAtMillis, in.readValue(length));
    }

    // ---- hint: a hint record's value

    public static byte[] hintRecord(Entry entry) {
        byte kind = kind(entry);
        byte[] value = kind == TOMBSTONE ? new byte[0] : entry.value();
        ByteBuffer record = ByteBuffer.allocate(HINT_OVERHEAD + (carriesExpiry(kind) ? EXPIRY_BYTES : 0) + value.length);
        record.put(kind).putLong(entry.timestamp());
        if (carriesExpiry(kind)) {
            record.putLong(entry.expiresAtMillis());
        }
        return record.put(value).array();
    }

    /**
     * The entry of {@code key} a hint record holds.
     *
     * @throws IllegalArgumentException if the record is malformed, saying how
     */
    public static Entry readHintRecord(byte[] key, byte[] record) {
        byte kind = record.length == 0 ? -1 : record[0];
        int fields = HINT_OVERHEAD + (carriesExpiry(kind) ? EXPIRY_BYTES : 0);
        if (record.length < fields) {
            throw new IllegalArgumentException("a hint record of " + record.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(record, 1, fields - 1);
        long timestamp = in.getLong();
        long expiresAtMillis = carriesExpiry(kind) ? in.getLong() : Entry.NEVER;
        String refusal = refusal(kind, timestamp);
        if (refusal == null && carriesExpiry(kind)) {
            refusal = expiryRefusal(expiresAtMillis);
        }
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        return entry(key, kind, timestamp, expiresAtMillis, Arrays.copyOfRange(record, fields, record.length));
    }

    private static void writeKey(Output out, byte[] key) {
        out.writeInt(key.length);
        out.writeBytes(key);
    }
}
