package io.kvstore.cluster.internal;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.HybridClock;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hints kept durably in a store of their own (a {@link Dao}, the node's own engine in a subdirectory of
 * its data directory), so that they survive a crash of this node.
 *
 * <p>Layout of one hint in the store, ordered so that a node's hints are one key range, oldest first:
 * <pre>
 *   key   = target node (UTF-8) | 0x00 | write timestamp (8 bytes, big-endian) | key of the write
 *   value = the write in {@link EntryCodec}'s hint framing: kind (1 byte: 0 value, 1 tombstone,
 *           2 expiring value) | write timestamp (8 bytes)
 *           | [expiry, milliseconds since the epoch (8 bytes), kind 2 only] | value bytes
 * </pre>
 * A hint keeps the write's expiry, so that it reaches the target expiring as the write did; an expired
 * one is still delivered, as the tombstone of its timestamp it has become.
 * A hint delivered or expired is removed with a tombstone of the hint store's own clock, which a
 * {@link ClockLease} keeps increasing across restarts. Counts and bytes per target are kept in memory,
 * recounted from the store when it opens.
 *
 * <p>The tombstones of delivered hints stay in the store until its compactions drop them, ahead of the
 * hints still waiting. So that a replay does not read past every hint delivered since, each target
 * keeps where its first live hint was last seen, and a replay starts there; a hint appended before
 * that point (a write with an older timestamp) moves it back.
 *
 * <p>Calls block on the store: run them off event loops. Thread-safe.
 */
final class HintStore implements AutoCloseable {
    private final Dao dao;
    private final HybridClock clock;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    /** Hints and bytes waiting for one target, and where its replays start. */
    static final class Pending {
        final AtomicLong count = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        /**
         * No live hint of the target is stored below this key; null: start at the target's first key.
         * GUARDED_BY this. An append lowers it after storing its hint.
         */
        private byte[] firstLive;
    }

    /** Opens hints kept in {@code dao}; its clock must not go back across restarts. Counts what it holds. */
    HintStore(Dao dao, HybridClock clock) throws IOException {
        this.dao = Objects.requireNonNull(dao, "dao");
        this.clock = Objects.requireNonNull(clock, "clock");
        try (CloseableIterator<Entry> all = dao.range(null, null)) {
            while (all.hasNext()) {
                Entry stored = all.next();
                if (!stored.isTombstone()) {
                    Hint hint = decode(stored);
                    Pending p = pendingOf(hint.target);
                    p.count.incrementAndGet();
                    p.bytes.addAndGet(hint.bytes());
                }
            }
        }
    }

    /** Keeps {@code entry} for {@code target}; a hint already kept for the same version is not kept twice. */
    void append(String target, Entry entry) throws IOException {
        byte[] storedKey = storedKey(target, entry);
        Entry existing = dao.get(storedKey);
        if (existing != null && !existing.isTombstone()) {
            return;
        }
        byte[] encoded = EntryCodec.hintRecord(entry);
        try {
            dao.upsert(Entry.value(storedKey, encoded, now()));
        } catch (IOException e) {
            // A write that failed after reaching the store (its log's fsync did) is served all the same:
            // such a hint is counted and replayed like any other, once at least.
            if (holds(storedKey)) {
                added(target, entry, storedKey);
            }
            throw e;
        }
        added(target, entry, storedKey);
    }

    private void added(String target, Entry entry, byte[] storedKey) {
        Pending p = pendingOf(target);
        synchronized (p) {
            if (p.firstLive != null && Arrays.compareUnsigned(storedKey, p.firstLive) < 0) {
                p.firstLive = storedKey;
            }
        }
        p.count.incrementAndGet();
        p.bytes.addAndGet(new Hint(target, entry, storedKey).bytes());
    }

    /** Whether the store serves a live hint at {@code storedKey}; false if it cannot tell. */
    private boolean holds(byte[] storedKey) {
        try {
            Entry stored = dao.get(storedKey);
            return stored != null && !stored.isTombstone();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The oldest hints for {@code target}, at least one if any, until {@code maxBytes} or {@code maxCount}. */
    List<Hint> oldest(String target, long maxBytes, int maxCount) throws IOException {
        byte[] prefix = prefix(target);
        byte[] end = prefix.clone();
        end[end.length - 1] = 1;
        Pending p = pendingOf(target);
        // Held through the scan: an append made meanwhile moves the start back only after this replay
        // moved it forward, so no hint stored behind the scan's snapshot is skipped.
        synchronized (p) {
            List<Hint> hints = new ArrayList<>();
            long bytes = 0;
            byte[] lastSeen = null;
            try (CloseableIterator<Entry> range = dao.range(p.firstLive == null ? prefix : p.firstLive, end)) {
                while (range.hasNext() && hints.size() < maxCount && (hints.isEmpty() || bytes < maxBytes)) {
                    Entry stored = range.next();
                    lastSeen = stored.key();
                    if (!stored.isTombstone()) {
                        Hint hint = decode(stored);
                        hints.add(hint);
                        bytes += hint.bytes();
                    }
                }
            }
            byte[] firstLive = hints.isEmpty() ? lastSeen : hints.get(0).storedKey;
            if (firstLive != null) {
                p.firstLive = firstLive;
            }
            return hints;
        }
    }

    /** Removes a hint delivered or expired. */
    void remove(Hint hint) throws IOException {
        try {
            dao.upsert(Entry.tombstone(hint.storedKey, now()));
        } catch (IOException e) {
            // As for an append: a removal the store serves though it failed is counted.
            if (!holds(hint.storedKey)) {
                removed(hint);
            }
            throw e;
        }
        removed(hint);
    }

    private void removed(Hint hint) {
        Pending p = pendingOf(hint.target);
        p.count.decrementAndGet();
        p.bytes.addAndGet(-hint.bytes());
    }

    /**
     * Removes every hint kept for {@code target} (a node that left the cluster) and returns how many
     * there were.
     */
    long removeAll(String target) throws IOException {
        long removed = 0;
        while (true) {
            List<Hint> batch = oldest(target, Long.MAX_VALUE, 1024);
            if (batch.isEmpty()) {
                return removed;
            }
            for (Hint hint : batch) {
                remove(hint);
            }
            removed += batch.size();
        }
    }

    /** The nodes this store holds hints for. */
    Set<String> targets() {
        Set<String> targets = new HashSet<>();
        for (Map.Entry<String, Pending> p : pending.entrySet()) {
            if (p.getValue().count.get() > 0) {
                targets.add(p.getKey());
            }
        }
        return targets;
    }

    /** Hints waiting for {@code target}. */
    long pendingCount(String target) {
        Pending p = pending.get(target);
        return p == null ? 0 : Math.max(0, p.count.get());
    }

    /** Bytes of the hints waiting for {@code target}. */
    long pendingBytes(String target) {
        Pending p = pending.get(target);
        return p == null ? 0 : Math.max(0, p.bytes.get());
    }

    /**
     * What the store holds in memory and in files, the tombstones of delivered hints included (they
     * stay until compactions drop them); 0 if its engine does not know.
     */
    long storedBytes() {
        DaoProperties properties = dao.properties();
        return Math.max(0, properties.memtableBytes()) + Math.max(0, properties.tableBytes());
    }

    @Override
    public void close() throws IOException {
        dao.close();
    }

    /**
     * A timestamp of the store's own clock; a clock lease that cannot be extended (a full or failing
     * disk) fails the call as the store's own writes do, not with an unchecked exception.
     */
    private long now() throws IOException {
        try {
            return clock.now();
        } catch (UncheckedIOException e) {
            throw new IOException(e.getMessage(), e.getCause());
        }
    }

    private Pending pendingOf(String target) {
        return pending.computeIfAbsent(target, t -> new Pending());
    }

    private static byte[] prefix(String target) {
        byte[] name = target.getBytes(StandardCharsets.UTF_8);
        byte[] prefix = Arrays.copyOf(name, name.length + 1);
        prefix[name.length] = 0;
        return prefix;
    }

    private static byte[] storedKey(String target, Entry entry) {
        byte[] prefix = prefix(target);
        return ByteBuffer.allocate(prefix.length + 8 + entry.key().length)
                .put(prefix).putLong(entry.timestamp()).put(entry.key()).array();
    }

    private Hint decode(Entry stored) throws IOException {
        byte[] key = stored.key();
        byte[] value = stored.value();
        int separator = -1;
        for (int i = 0; i < key.length; i++) {
            if (key[i] == 0) {
                separator = i;
                break;
            }
        }
        if (separator < 0 || key.length < separator + 9) {
            throw new IOException("malformed hint " + stored + " in the hint store " + dao);
        }
        String target = new String(key, 0, separator, StandardCharsets.UTF_8);
        byte[] writeKey = Arrays.copyOfRange(key, separator + 9, key.length);
        Entry entry;
        try {
            entry = EntryCodec.readHintRecord(writeKey, value);
        } catch (IllegalArgumentException e) {
            throw new IOException("malformed hint " + stored + " in the hint store " + dao + ": " + e.getMessage(), e);
        }
        return new Hint(target, entry, key);
    }
}
