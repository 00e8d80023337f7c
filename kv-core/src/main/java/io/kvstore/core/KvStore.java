package io.kvstore.core;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A plain sorted map of byte arrays on disk, for applications that embed kvstore: no timestamps, no
 * tombstones. It is a thin view over a {@link Dao} that stamps each write itself.
 *
 * <pre>{@code
 * try (KvStore store = KvStore.open(Engine.LSM, DaoOptions.defaults(Path.of("data")))) {
 *     store.put(key, value);
 *     byte[] back = store.get(key);
 *     try (CloseableIterator<Map.Entry<byte[], byte[]>> it = store.range(from, null)) { ... }
 * }
 * }</pre>
 *
 * <p>Timestamps come from a clock (microseconds, close to wall-clock time) whose high-water mark is
 * leased in the file {@code KVSTORE-CLOCK} of the data directory, so they keep increasing across
 * reopens even if the wall clock steps back: a later {@code put} always replaces an earlier one. A
 * directory used through a {@code KvStore} should therefore not also be written through the
 * {@link Dao} with timestamps of another clock. Thread-safe.
 */
public final class KvStore implements Closeable {
    private final Dao dao;
    private final PersistentClock clock;
    /** The store's wall clock ({@link DaoOptions#clock()}), against which expiries are set and checked. */
    private final LongSupplier wallClock;

    private KvStore(Dao dao, PersistentClock clock, LongSupplier wallClock) {
        this.dao = dao;
        this.clock = clock;
        this.wallClock = wallClock;
    }

    /** Opens (creating if needed) a store of {@code engine} in {@code options.dataDirectory()}. */
    public static KvStore open(Engine engine, DaoOptions options) throws IOException {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(options, "options");
        options.storage().createDirectories(options.dataDirectory());
        // The Dao first: its directory lock keeps two KvStores from sharing one clock file.
        Dao dao = engine.open(options.toBuilder().timestampToMillis(DaoOptions.MICROSECOND_TIMESTAMPS).build());
        try {
            return new KvStore(dao, PersistentClock.open(options.storage(), options.dataDirectory(),
                    PersistentClock.DEFAULT_LEASE_MICROS),
                    options.clock());
        } catch (IOException | RuntimeException e) {
            try {
                dao.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The value stored under {@code key}, or {@code null} if absent or deleted. */
    public byte[] get(byte[] key) throws IOException {
        Entry entry = dao.get(Objects.requireNonNull(key, "key"));
        return entry == null ? null : entry.value();
    }

    /** Stores {@code value} (possibly empty) under {@code key}, replacing any earlier value. */
    public void put(byte[] key, byte[] value) throws IOException {
        dao.upsert(Entry.value(Objects.requireNonNull(key, "key"), value, clock.next()));
    }

    /**
     * Stores {@code value} under {@code key} for {@code ttl}: from then on the key reads as absent, as
     * if deleted. A later {@link #put(byte[], byte[])} without a TTL replaces it as usual.
     *
     * @throws IllegalArgumentException if {@code ttl} is not positive, or so long that the expiry
     *                                  overflows the clock's 64-bit milliseconds
     */
    public void put(byte[] key, byte[] value, Duration ttl) throws IOException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        long now = wallClock.getAsLong();
        long expiresAt;
        try {
            expiresAt = Math.addExact(now, ttl.toMillis());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("ttl " + ttl + " overflows the clock: now is " + now
                    + " ms since the epoch, and an expiry must stay below " + Long.MAX_VALUE, e);
        }
        dao.upsert(Entry.value(key, value, clock.next(), expiresAt));
    }

    /** Removes {@code key}; nothing happens if it is absent. */
    public void delete(byte[] key) throws IOException {
        dao.upsert(Entry.tombstone(Objects.requireNonNull(key, "key"), clock.next()));
    }

    /**
     * The present keys in {@code [from, to)} with their values, in unsigned byte order; either bound
     * may be {@code null} for an open end. Lazy; must be closed.
     */
    public CloseableIterator<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) throws IOException {
        return new PresentEntries(dao.range(from, to));
    }

    /** Makes every write so far durable in immutable files. */
    public void flush() throws IOException {
        dao.flush();
    }

    /** What the store holds and what its engine has done since it opened (see {@link Dao#properties()}). */
    public DaoProperties properties() {
        return dao.properties();
    }

    @Override
    public void close() throws IOException {
        dao.close();
    }

    /** Skips tombstones of the underlying range, one entry ahead. */
    private static final class PresentEntries implements CloseableIterator<Map.Entry<byte[], byte[]>> {
        private final CloseableIterator<Entry> versions;
        private Entry next;

        PresentEntries(CloseableIterator<Entry> versions) {
            this.versions = versions;
        }

        @Override
        public boolean hasNext() {
            while (next == null && versions.hasNext()) {
                Entry candidate = versions.next();
                if (!candidate.isTombstone()) {
                    next = candidate;
                }
            }
            return next != null;
        }

        @Override
        public Map.Entry<byte[], byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Entry entry = next;
            next = null;
            return new AbstractMap.SimpleImmutableEntry<>(entry.key(), entry.value());
        }

        @Override
        public void close() {
            versions.close();
        }
    }
}
