package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The in-memory, sorted buffer of recent writes, covered by one log file: a skip list laid out in a few
 * large byte arrays (an arena) rather than in objects.
 *
 * <p>Why an arena: a {@code ConcurrentSkipListMap} costs four or five objects per write (node, index,
 * key, value, version link), and they live until the memtable is flushed, so they survive young
 * collections and the collector copies each of them through the survivor spaces, with the old-to-young
 * pointers of the map to scan as well: under a PUT load that was most of the server's GC pause time.
 * Here a memtable is a few primitive arrays: nothing to trace, and a node's links sit next to its key;
 * a server-sized memtable takes arrays of a whole G1 region each, which no collection copies
 * ({@link ArenaLayout}).
 *
 * <p>Each key has one node and a chain of versions, newest sequence number first; each version holds
 * the entry visible at its sequence number (the winner by {@link Entry#compareVersions}), so a point read
 * takes the head and a snapshot read walks to the first version at or below its sequence number.
 *
 * <p>Concurrency: one writer at a time, any number of readers without locks. The writer fills a new
 * record with plain stores and publishes it with one release store (a link, or a node's version head);
 * readers follow pointers with acquire loads, so a record they reach is complete. Published records
 * never change, except links and version heads, which only ever move to newer records. Pointers are
 * 4-byte ints at 4-byte aligned addresses, so a load is never torn on any JVM's array layout; release
 * and acquire are fences around those plain accesses, because byte-array views offer no atomic access
 * modes on newer JVMs.
 *
 * <p>Layout, every record 4-byte aligned, native byte order; a pointer is
 * {@code chunk << ArenaLayout.OFFSET_BITS | offset / 4} (a chunk larger than the offset bits reach holds
 * a single record, at offset 0), {@link #NIL} for none:
 * <pre>
 *   node:    int versionHead | int keyLength | int height | int next[height] | key bytes
 *   version: long sequence | long timestamp | int older | int valueLength (-1: tombstone) | [long expiresAt] | value bytes
 * </pre>
 * where {@code expiresAt} is present when {@code valueLength} has the {@link #EXPIRES} bit, which
 * lengths never have (values are at most 512 MiB).
 *
 * <p>REQUIRES: {@link #put} under the store's write lock; reads need no lock.
 */
final class Memtable {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final VarHandle HEAD = MethodHandles.arrayElementVarHandle(int[].class);

    /** Node heights are 1 + one per pair of trailing zero bits: P(h > n) = 4^-n, enough for 4^16 keys. */
    static final int MAX_HEIGHT = 16;
    private static final int NIL = -1;

    private static final int NODE_VERSION_HEAD = 0;
    private static final int NODE_KEY_LENGTH = 4;
    private static final int NODE_HEIGHT = 8;
    private static final int NODE_NEXT = 12;
    private static final int VERSION_SEQUENCE = 0;
    private static final int VERSION_TIMESTAMP = 8;
    private static final int VERSION_OLDER = 16;
    private static final int VERSION_VALUE_LENGTH = 20;
    private static final int VERSION_VALUE = 24;
    private static final int TOMBSTONE = -1;
    /** In a version's value length: an 8-byte expiry precedes the value bytes. */
    private static final int EXPIRES = 1 << 30;

    private final long logNumber;
    private final ArenaLayout layout;
    /** The head node's links, one per level. */
    private final int[] head = new int[MAX_HEIGHT];
    /** Every chunk allocated so far; replaced (never changed in place) when one is added. */
    private volatile byte[][] chunks = new byte[0][];
    /** The tallest node's height: a reader that sees an older, lower value only starts lower. */
    private volatile int height = 1;
    private volatile int keyCount;
    private volatile long sizeBytes;
    private volatile long minTimestamp = Long.MAX_VALUE;
    private volatile long maxTimestamp = Long.MIN_VALUE;

    // Writer-only state.
    private byte[] chunk;
    private int chunkIndex = -1;
    private int chunkUsed;
    private final int[] predecessors = new int[MAX_HEIGHT];

    /** A memtable of small chunks. */
    Memtable(long logNumber) {
        this(logNumber, ArenaLayout.SMALL);
    }

    /** A memtable expected to hold about {@code expectedBytes} before it is frozen. */
    Memtable(long logNumber, long expectedBytes) {
        this(logNumber, ArenaLayout.forMemtableOf(expectedBytes));
    }

    Memtable(long logNumber, ArenaLayout layout) {
        this.logNumber = logNumber;
        this.layout = layout;
        Arrays.fill(head, NIL);
    }

    /** The number of the log file holding this memtable's writes. */
    long logNumber() {
        return logNumber;
    }

    void put(Entry entry, long sequence) {
        byte[] key = entry.key();
        int found = seek(key, predecessors);
        long timestamp = entry.timestamp();
        if (found != NIL && compareKey(found, key) == 0) {
            byte[] nodeChunk = chunk(found);
            int node = offset(found);
            int newest = (int) INT.get(nodeChunk, node + NODE_VERSION_HEAD);
            if (compareWith(entry, newest) >= 0) {
                int version = appendVersion(entry, sequence, newest);
                storeRelease(nodeChunk, node + NODE_VERSION_HEAD, version);
            }
            // else: a losing version changes nothing a reader can see.
        } else {
            insertNode(key, appendVersion(entry, sequence, NIL));
        }
        if (timestamp < minTimestamp) {
            minTimestamp = timestamp;
        }
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
    }

    /** The visible version of {@code key} here, or {@code null}. */
    Entry get(byte[] key) {
        int node = seek(key, null);
        if (node == NIL || compareKey(node, key) != 0) {
            return null;
        }
        return entryAt(key.clone(), loadAcquire(chunk(node), offset(node) + NODE_VERSION_HEAD));
    }

    boolean isEmpty() {
        return keyCount == 0;
    }

    int keyCount() {
        return keyCount;
    }

    /** Bytes taken in the arena: records with their keys, values and alignment. */
    long sizeBytes() {
        return sizeBytes;
    }

    long minTimestamp() {
        return minTimestamp;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** Visible versions as of {@code sequence} (inclusive) of keys in {@code [from, to)}. */
    CloseableIterator<Entry> iterator(byte[] from, byte[] to, long sequence) {
        int first = from == null ? (int) HEAD.getAcquire(head, 0) : seek(from, null);
        return new SnapshotIterator(first, to, sequence);
    }

    // ---- the skip list ----

    /**
     * The first node whose key is at or after {@code key}, or {@link #NIL}. With {@code predecessors},
     * also records at each level the last node before {@code key} ({@link #NIL}: the head).
     */
    private int seek(byte[] key, int[] predecessors) {
        int node = NIL;
        int level = height - 1;
        if (predecessors != null) {
            Arrays.fill(predecessors, level + 1, MAX_HEIGHT, NIL);
        }
        while (true) {
            int next = next(node, level);
            if (next != NIL && compareKey(next, key) < 0) {
                node = next;
            } else {
                if (predecessors != null) {
                    predecessors[level] = node;
                }
                if (level == 0) {
                    return next;
                }
                level--;
            }
        }
    }

    /** Links a new node after {@link #predecessors} as {@link #seek} left them. */
    private void insertNode(byte[] key, int version) {
        int nodeHeight = 1 + Math.min(MAX_HEIGHT - 1,
                Integer.numberOfTrailingZeros(ThreadLocalRandom.current().nextInt() | 1 << 30) / 2);
        int node = allocate(NODE_NEXT + 4 * nodeHeight + key.length);
        byte[] c = chunk;
        int at = offset(node);
        INT.set(c, at + NODE_VERSION_HEAD, version);
        INT.set(c, at + NODE_KEY_LENGTH, key.length);
        INT.set(c, at + NODE_HEIGHT, nodeHeight);
        for (int level = 0; level < nodeHeight; level++) {
            INT.set(c, at + NODE_NEXT + 4 * level, next(predecessors[level], level));
        }
        System.arraycopy(key, 0, c, at + NODE_NEXT + 4 * nodeHeight, key.length);
        // Bottom up: a reader that finds the node at some level finds it at every level below.
        for (int level = 0; level < nodeHeight; level++) {
            int predecessor = predecessors[level];
            if (predecessor == NIL) {
                HEAD.setRelease(head, level, node);
            } else {
                storeRelease(chunk(predecessor), offset(predecessor) + NODE_NEXT + 4 * level, node);
            }
        }
        if (nodeHeight > height) {
            height = nodeHeight;
        }
        keyCount++;
    }

    private int appendVersion(Entry entry, long sequence, int older) {
        byte[] value = entry.value();
        int valueLength = value == null ? 0 : value.length;
        boolean expires = entry.expires();
        int valueAt = VERSION_VALUE + (expires ? 8 : 0);
        int version = allocate(valueAt + valueLength);
        byte[] c = chunk;
        int at = offset(version);
        LONG.set(c, at + VERSION_SEQUENCE, sequence);
        LONG.set(c, at + VERSION_TIMESTAMP, entry.timestamp());
        INT.set(c, at + VERSION_OLDER, older);
        INT.set(c, at + VERSION_VALUE_LENGTH, value == null ? TOMBSTONE : expires ? valueLength | EXPIRES : valueLength);
        if (expires) {
            LONG.set(c, at + VERSION_VALUE, entry.expiresAtMillis());
        }
        if (value != null) {
            System.arraycopy(value, 0, c, at + valueAt, valueLength);
        }
        return version;
    }

    /** {@link Entry#compareVersions} of {@code entry} against the stored {@code version}, without copying it. */
    private int compareWith(Entry entry, int version) {
        byte[] c = chunk(version);
        int at = offset(version);
        int stored = (int) INT.get(c, at + VERSION_VALUE_LENGTH);
        boolean storedExpires = stored != TOMBSTONE && (stored & EXPIRES) != 0;
        long storedExpiry = storedExpires ? (long) LONG.get(c, at + VERSION_VALUE) : Entry.NEVER;
        int byHeads = Entry.compareVersionHeads(entry.timestamp(), entry.isTombstone(), entry.expiresAtMillis(),
                (long) LONG.get(c, at + VERSION_TIMESTAMP), stored == TOMBSTONE, storedExpiry);
        byte[] value = entry.value();
        if (byHeads != 0 || value == null) {
            return byHeads;
        }
        int valueAt = at + VERSION_VALUE + (storedExpires ? 8 : 0);
        int storedLength = stored & ~EXPIRES;
        return Arrays.compareUnsigned(value, 0, value.length, c, valueAt, valueAt + storedLength);
    }

    /** The link at {@code level} out of {@code node} ({@link #NIL}: out of the head). */
    private int next(int node, int level) {
        return node == NIL ? (int) HEAD.getAcquire(head, level)
                : loadAcquire(chunk(node), offset(node) + NODE_NEXT + 4 * level);
    }

    private int compareKey(int node, byte[] key) {
        byte[] c = chunk(node);
        int start = keyStart(c, offset(node));
        return Arrays.compareUnsigned(c, start, start + keyLength(c, offset(node)), key, 0, key.length);
    }

    private byte[] keyOf(int node) {
        byte[] c = chunk(node);
        int start = keyStart(c, offset(node));
        return Arrays.copyOfRange(c, start, start + keyLength(c, offset(node)));
    }

    /** Where the key of the node at {@code at} starts: after its links. */
    private static int keyStart(byte[] c, int at) {
        return at + NODE_NEXT + 4 * (int) INT.get(c, at + NODE_HEIGHT);
    }

    private static int keyLength(byte[] c, int at) {
        return (int) INT.get(c, at + NODE_KEY_LENGTH);
    }

    /** The entry of {@code version}, with {@code key} as its key. */
    private Entry entryAt(byte[] key, int version) {
        byte[] c = chunk(version);
        int at = offset(version);
        long timestamp = (long) LONG.get(c, at + VERSION_TIMESTAMP);
        int valueLength = (int) INT.get(c, at + VERSION_VALUE_LENGTH);
        if (valueLength == TOMBSTONE) {
            return Entry.tombstone(key, timestamp);
        }
        if ((valueLength & EXPIRES) == 0) {
            return Entry.value(key, Arrays.copyOfRange(c, at + VERSION_VALUE, at + VERSION_VALUE + valueLength), timestamp);
        }
        int valueAt = at + VERSION_VALUE + 8;
        return Entry.value(key, Arrays.copyOfRange(c, valueAt, valueAt + (valueLength & ~EXPIRES)), timestamp,
                (long) LONG.get(c, at + VERSION_VALUE));
    }

    // ---- the arena ----

    /** Room for a record of {@code bytes} in the current chunk, or a new one; returns its pointer. */
    private int allocate(int bytes) {
        int size = (bytes + 3) & ~3;
        if (size < 0) {
            throw new IllegalArgumentException("record of " + bytes + " bytes is too large for a memtable");
        }
        if (chunk == null || chunkUsed + size > chunk.length) {
            if (chunks.length == ArenaLayout.MAX_CHUNKS) {
                throw new IllegalStateException("memtable of log " + logNumber + " is full: " + chunks.length
                        + " chunks, " + sizeBytes + " bytes; use a smaller flush threshold");
            }
            // A record larger than a chunk gets a chunk of its own, at offset 0.
            int next = layout.nextChunkBytes(chunk == null ? 0 : chunk.length, sizeBytes);
            byte[][] grown = Arrays.copyOf(chunks, chunks.length + 1);
            grown[grown.length - 1] = new byte[Math.max(next, size)];
            chunk = grown[grown.length - 1];
            chunkIndex = grown.length - 1;
            chunkUsed = 0;
            chunks = grown; // published before any pointer into it
        }
        int pointer = chunkIndex << ArenaLayout.OFFSET_BITS | chunkUsed >>> 2;
        chunkUsed += size;
        sizeBytes += size;
        return pointer;
    }

    private byte[] chunk(int pointer) {
        return chunks[pointer >>> ArenaLayout.OFFSET_BITS];
    }

    private static int offset(int pointer) {
        return (pointer & (1 << ArenaLayout.OFFSET_BITS) - 1) << 2;
    }

    /**
     * A plain load followed by an acquire fence: what {@code getAcquire} does, which byte-array views
     * do not offer on newer JVMs. The int is 4-byte aligned (records are, and an array's data starts at
     * a multiple of 4 on every JVM layout), so the load itself is never torn.
     */
    private static int loadAcquire(byte[] chunk, int at) {
        int value = (int) INT.get(chunk, at);
        VarHandle.acquireFence();
        return value;
    }

    /** A release fence, then a plain store: {@code setRelease}, as {@link #loadAcquire} explains. */
    private static void storeRelease(byte[] chunk, int at, int value) {
        VarHandle.releaseFence();
        INT.set(chunk, at, value);
    }

    private final class SnapshotIterator implements CloseableIterator<Entry> {
        private final byte[] to;
        private final long sequence;
        private int node;
        private Entry next;

        SnapshotIterator(int first, byte[] to, long sequence) {
            this.to = to;
            this.sequence = sequence;
            this.node = first;
            advance();
        }

        private void advance() {
            next = null;
            while (node != NIL && (to == null || compareKey(node, to) < 0)) {
                int current = node;
                node = Memtable.this.next(current, 0);
                int version = loadAcquire(chunk(current), offset(current) + NODE_VERSION_HEAD);
                while (version != NIL && (long) LONG.get(chunk(version), offset(version) + VERSION_SEQUENCE) > sequence) {
                    version = (int) INT.get(chunk(version), offset(version) + VERSION_OLDER);
                }
                if (version != NIL) {
                    next = entryAt(keyOf(current), version);
                    return;
                }
            }
            node = NIL;
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Entry next() {
            Entry result = next;
            if (result == null) {
                throw new NoSuchElementException();
            }
            advance();
            return result;
        }

        @Override
        public void close() {
            next = null;
            node = NIL;
        }
    }

    @Override
    public String toString() {
        return "Memtable{log " + logNumber + ", " + keyCount + " keys, " + sizeBytes + " bytes}";
    }
}
