package io.kvstore.server.wire;

import io.kvstore.cluster.internal.EntryCodec;
import io.kvstore.cluster.internal.repair.EntryBatch;
import io.kvstore.cluster.internal.repair.KeyInterval;
import io.kvstore.cluster.internal.repair.KeyVersion;
import io.kvstore.cluster.internal.repair.VersionPage;
import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The node-to-node routes of anti-entropy and their binary bodies (big-endian). A node serves them from
 * its own store only; they are never forwarded.
 *
 * <pre>
 * POST   /internal/v0/repair/tree?partner=URL&amp;rf=N&amp;depth=D[&amp;from=K][&amp;to=K]
 *                                              starts building a tree  -> 200, body: tree id (decimal)
 * GET    /internal/v0/repair/tree?tree=ID     200 once built, body: the tree's entries (decimal);
 *                                              202 if still building after a while (ask again)
 * DELETE /internal/v0/repair/tree?tree=ID     -> 204
 * POST   /internal/v0/repair/hashes?tree=ID&amp;level=L   body: int index*          -> 200, long hash*
 * POST   /internal/v0/repair/versions?tree=ID&amp;max=N[&amp;after=K][&amp;upTo=K]   body: segment bit set
 *                                                -> 200, byte complete, [int n, through], int count, version*
 * POST   /internal/v0/repair/entries?maxBytes=N   body: int count, key*         -> 200, int keysRead, int count, entry*
 * POST   /internal/v0/repair/apply[?ingest=true]   body: int count, entry*     -> 204
 *
 * key     = int length, bytes               (after, upTo, from, to: base64url in the query)
 * version = key, long timestamp, byte tombstone, long value hash (0 for a tombstone)
 * entry   = {@link EntryCodec}'s body framing: key, long timestamp, int valueLength (-1: tombstone), value bytes,
 *           long expiry (values only: milliseconds since the epoch, Long.MAX_VALUE for never)
 * segment bit set = java.util.BitSet#toByteArray (little-endian bit order)
 * </pre>
 *
 * A tree covers the keys of {@code [from, to)}, crossed with the partner and segment filters, and its
 * listings list no other: its scan reads that interval only. Either bound may be left out for an open
 * end; a request with neither, as every request was before trees had an interval, covers the whole key
 * space. {@code from} is a key as any route takes one (1 to {@code --max-key-bytes} bytes); {@code to}
 * may be one byte longer, the end just past a longest key (a damaged table's interval ends there), and
 * {@code from} must not sort after {@code to} ({@code from == to} is an empty interval). A node that does not know
 * the bounds ignores them and builds its tree over every key; the driver of the exchange leaves out
 * what it lists outside the interval, so the exchange still moves only the interval's keys. An older
 * node answers the poll of a built tree with an empty body: its entries are then not known.
 *
 * A malformed body or parameter is a 400 naming what is wrong and where; a node holding as many trees
 * as it allows answers 503 with Retry-After.
 */
public final class RepairProtocol {
    public static final String TREE = Routes.REPAIR_PREFIX + "tree";
    public static final String HASHES = Routes.REPAIR_PREFIX + "hashes";
    public static final String VERSIONS = Routes.REPAIR_PREFIX + "versions";
    public static final String ENTRIES = Routes.REPAIR_PREFIX + "entries";
    public static final String APPLY = Routes.REPAIR_PREFIX + "apply";
    /** On apply: the entries are in strictly increasing key order and the store may ingest them as tables. */
    public static final String INGEST = "ingest";
    public static final String PARTNER = "partner";
    public static final String REPLICATION_FACTOR = "rf";
    public static final String DEPTH = "depth";
    public static final String TREE_ID = "tree";
    public static final String LEVEL = "level";
    public static final String MAX = "max";
    public static final String AFTER = "after";
    public static final String UP_TO = "upTo";
    public static final String MAX_BYTES = "maxBytes";
    public static final String FROM = "from";
    public static final String TO = "to";
    /** Most bytes of entries one {@code entries} answer may be asked to hold. */
    public static final long MAX_ENTRIES_BYTES = 64L << 20;

    private RepairProtocol() {
    }

    /** @throws IllegalArgumentException if {@code key} is not base64url */
    public static byte[] decodeKey(String name, String key) {
        try {
            return InternalCodec.decodeKey(key);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad " + name + " '" + key + "': not base64url");
        }
    }

    /**
     * The key interval of a tree request: its {@code from} and {@code to} bounds, each optional; neither
     * is the whole key space.
     *
     * @throws IllegalArgumentException (400) for a bound that is not base64url, empty or longer than a
     *                                  key may be ({@code to} one byte more: the end just past a longest
     *                                  key), or a {@code from} after {@code to}
     */
    public static KeyInterval interval(String query, int maxKeyBytes) {
        byte[] from = bound(query, FROM, maxKeyBytes);
        byte[] to = bound(query, TO, maxKeyBytes + 1);
        return from == null && to == null ? KeyInterval.ALL : new KeyInterval(from, to);
    }

    private static byte[] bound(String query, String name, int maxKeyBytes) {
        String text = QueryParameters.text(query, name);
        if (text == null) {
            return null;
        }
        byte[] key = decodeKey(name, text);
        String refusal = KeyLimit.refusal(key.length, maxKeyBytes, name);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        return key;
    }

    /**
     * The query parameters of {@code interval} for a tree request of {@code uriChars} characters so far,
     * each starting with '&amp;'; none for the whole key space. If both bounds would not fit the request
     * line (keys near the largest {@code --max-key-bytes}), only {@code from}: the peer's tree then covers
     * {@code [from, +inf)}, and the exchange leaves out what it lists past {@code to}.
     */
    public static String intervalQuery(KeyInterval interval, int uriChars) {
        String from = interval.from() == null ? "" : '&' + FROM + '=' + InternalCodec.encodeKey(interval.from());
        String to = interval.to() == null ? "" : '&' + TO + '=' + InternalCodec.encodeKey(interval.to());
        // "POST " + URI + " HTTP/1.1", with room to spare
        boolean fits = uriChars + from.length() + to.length() + 64 <= Routes.MAX_REQUEST_LINE_BYTES;
        return fits ? from + to : from;
    }

    // ---- writing ----

    public static Buffer ints(int[] values) {
        Buffer out = Buffer.buffer(values.length * 4);
        for (int value : values) {
            out.appendInt(value);
        }
        return out;
    }

    public static Buffer longs(long[] values) {
        Buffer out = Buffer.buffer(values.length * 8);
        for (long value : values) {
            out.appendLong(value);
        }
        return out;
    }

    public static Buffer keys(List<byte[]> keys) {
        Buffer out = Buffer.buffer().appendInt(keys.size());
        for (byte[] key : keys) {
            out.appendInt(key.length).appendBytes(key);
        }
        return out;
    }

    public static Buffer page(VersionPage page) {
        Buffer out = Buffer.buffer().appendByte((byte) (page.complete() ? 1 : 0));
        if (!page.complete()) {
            out.appendInt(page.through().length).appendBytes(page.through());
        }
        out.appendInt(page.versions().size());
        for (KeyVersion version : page.versions()) {
            out.appendInt(version.key().length).appendBytes(version.key())
                    .appendLong(version.timestamp()).appendByte((byte) (version.tombstone() ? 1 : 0))
                    .appendLong(version.valueHash());
        }
        return out;
    }

    public static Buffer batch(EntryBatch batch) {
        return entries(Buffer.buffer().appendInt(batch.keysRead()), batch.entries());
    }

    public static Buffer entries(List<Entry> entries) {
        return entries(Buffer.buffer(), entries);
    }

    private static Buffer entries(Buffer out, List<Entry> entries) {
        out.appendInt(entries.size());
        for (Entry entry : entries) {
            appendEntry(out, entry);
        }
        return out;
    }

    /** Appends one {@code entry} as the pre block above describes it. */
    static Buffer appendEntry(Buffer out, Entry entry) {
        EntryCodec.writeBody(new BufferOutput(out), entry);
        return out;
    }

    // ---- reading ----

    /**
     * Reads one body; every length is checked against what is left and against the limits, so a
     * malformed body is an {@link IllegalArgumentException} saying what and at which offset.
     */
    public static final class Reader implements EntryCodec.Input {
        private final byte[] bytes;
        private final String what;
        private final int maxKeyBytes;
        private int offset;

        public Reader(byte[] bytes, String what, int maxKeyBytes) {
            this.bytes = bytes;
            this.what = what;
            this.maxKeyBytes = maxKeyBytes;
        }

        public int[] ints(int max) {
            if (bytes.length % 4 != 0 || bytes.length / 4 > max) {
                throw malformed("a body of " + bytes.length + " bytes is not at most " + max + " 4-byte indexes");
            }
            int[] values = new int[bytes.length / 4];
            for (int i = 0; i < values.length; i++) {
                values[i] = readInt();
            }
            return values;
        }

        public long[] longs() {
            if (bytes.length % 8 != 0) {
                throw malformed("a body of " + bytes.length + " bytes is not a list of 8-byte hashes");
            }
            long[] values = new long[bytes.length / 8];
            for (int i = 0; i < values.length; i++) {
                values[i] = readLong();
            }
            return values;
        }

        public List<byte[]> keys(int max) {
            int count = count(max);
            List<byte[]> keys = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                keys.add(readKey());
            }
            end();
            return keys;
        }

        public VersionPage page() {
            boolean complete = flag();
            byte[] through = complete ? null : readKey();
            int count = count(Integer.MAX_VALUE);
            List<KeyVersion> versions = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                versions.add(new KeyVersion(readKey(), readLong(), flag(), readLong()));
            }
            end();
            return new VersionPage(versions, complete, through);
        }

        public EntryBatch batch() {
            int keysRead = readInt();
            return new EntryBatch(entries(), keysRead);
        }

        public List<Entry> entries() {
            int count = count(Integer.MAX_VALUE);
            List<Entry> entries = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                entries.add(entry());
            }
            end();
            return entries;
        }

        Entry entry() {
            return EntryCodec.readBody(this);
        }

        @Override
        public byte[] readKey() {
            int length = readInt();
            String refusal = KeyLimit.refusal(length, maxKeyBytes, "key");
            if (refusal != null) {
                throw malformed(refusal);
            }
            return take(length, "key");
        }

        int count(int max) {
            int count = readInt();
            if (count < 0 || count > max) {
                throw malformed("count " + count + " outside [0, " + max + "]");
            }
            return count;
        }

        boolean flag() {
            byte b = take(1, "flag")[0];
            if (b != 0 && b != 1) {
                throw malformed("flag " + b + " is neither 0 nor 1");
            }
            return b == 1;
        }

        @Override
        public byte readByte() {
            return take(1, "byte")[0];
        }

        @Override
        public int readInt() {
            byte[] b = take(4, "int");
            return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
        }

        @Override
        public long readLong() {
            return (long) readInt() << 32 | (readInt() & 0xFFFFFFFFL);
        }

        @Override
        public byte[] readValue(int length) {
            return take(length, "value");
        }

        byte[] take(int length, String field) {
            if (length < 0 || length > bytes.length - offset) {
                throw malformed(field + " of " + length + " bytes runs past the end of the body (" + bytes.length + " bytes)");
            }
            byte[] out = Arrays.copyOfRange(bytes, offset, offset + length);
            offset += length;
            return out;
        }

        void end() {
            if (offset != bytes.length) {
                throw malformed((bytes.length - offset) + " bytes left over");
            }
        }

        @Override
        public IllegalArgumentException malformed(String problem) {
            return new IllegalArgumentException("malformed " + what + " at offset " + offset + ": " + problem);
        }
    }

    /** The segment set of a versions request. */
    public static BitSet segments(byte[] body) {
        return BitSet.valueOf(body);
    }
}
