package io.kvstore.bench.peers;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * What every peer store needs to stand behind our {@link Dao}: versions kept in a {@link VersionedValue}
 * header, the winner chosen by a read before each write under a striped lock (the peers have no merge
 * operator that knows our rule), expired values read as tombstones, ranges over the peer's own snapshot,
 * and one open store per directory. A subclass supplies the peer's plain sorted map of bytes.
 *
 * <p>What the peer cannot tell stays at the interface's defaults: {@link #properties()},
 * {@link #diskSpace()} and {@link #health()} know nothing, nothing is ever quarantined to heal, and
 * {@link #scrub(long)} is unsupported. {@link #scan} reads as {@link #range} does: no peer is asked to keep
 * a long pass out of its cache.
 */
abstract class PeerDao implements Dao {
    /** Power of two; enough that two writers rarely contend on different keys. */
    private static final int WRITE_STRIPES = 256;
    private static final String LOCK_FILE = "PEER.LOCK";

    /** A sorted pass over a snapshot of the peer's keys, from a key on; the subclass's side of a range. */
    interface Cursor extends AutoCloseable {
        /** Moves to the next key; {@code false} past the last one. */
        boolean next() throws IOException;

        byte[] key();

        byte[] value();

        @Override
        void close();
    }

    final Path directory;
    private final LongSupplier clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Object[] stripes = new Object[WRITE_STRIPES];
    /** Read side held by every operation, write side by close, so no call outlives the peer's handle. */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Set<Range> openRanges = ConcurrentHashMap.newKeySet();
    private boolean closed;

    /** Takes the directory for this store; a subclass opens its peer after this returns. */
    PeerDao(DaoOptions options) throws IOException {
        this.directory = options.dataDirectory().toAbsolutePath();
        this.clock = options.clock();
        for (int i = 0; i < WRITE_STRIPES; i++) {
            stripes[i] = new Object();
        }
        Files.createDirectories(directory);
        lockChannel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock taken;
        try {
            taken = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            taken = null;
        }
        if (taken == null) {
            lockChannel.close();
            throw new IOException("Store " + directory + " is already open (its " + LOCK_FILE + " is held)");
        }
        lock = taken;
    }

    /** A call into the peer that may fail with an {@link IOException}. */
    interface Action {
        void run() throws IOException;
    }

    /** Whether the options ask for each write to be forced to the device; the peers have no group commit. */
    static boolean syncsEachWrite(DaoOptions options) {
        return options.syncPolicy() != SyncPolicy.NONE;
    }

    /** The stored bytes of {@code key}, or {@code null}. */
    abstract byte[] read(byte[] key) throws IOException;

    /** Stores {@code stored} under {@code key}, as durably as the options asked. */
    abstract void write(byte[] key, byte[] stored) throws IOException;

    /** Removes {@code key} from the peer. */
    abstract void remove(byte[] key) throws IOException;

    /** A cursor before the first key at or after {@code from} ({@code null}: the first key) of a snapshot. */
    abstract Cursor cursor(byte[] from) throws IOException;

    /** Closes the peer; every cursor is closed already. */
    abstract void closePeer() throws IOException;

    /** Writes {@code entry} unless the stored version wins over it. */
    void writeIfWins(Entry entry, byte[] encoded) throws IOException {
        synchronized (stripe(entry.key())) {
            if (VersionedValue.winsOver(entry, read(entry.key()))) {
                write(entry.key(), encoded);
            }
        }
    }

    /** Removes {@code key} if its stored bytes are still {@code seen}; whether it did. */
    boolean removeIfUnchanged(byte[] key, byte[] seen) throws IOException {
        synchronized (stripe(key)) {
            if (!Arrays.equals(read(key), seen)) {
                return false;
            }
            remove(key);
            return true;
        }
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        Lock held = enter();
        try {
            byte[] stored = read(key);
            return stored == null ? null : VersionedValue.decode(key, stored).asOf(clock.getAsLong());
        } finally {
            held.unlock();
        }
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        byte[] encoded = VersionedValue.encode(entry);
        Lock held = enter();
        try {
            writeIfWins(entry, encoded);
        } finally {
            held.unlock();
        }
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        Lock held = enter();
        try {
            if (from != null && to != null && Bytes.compare(from, to) >= 0) {
                return CloseableIterator.empty();
            }
            Range range = new Range(cursor(from), to, clock.getAsLong());
            openRanges.add(range);
            return range;
        } finally {
            held.unlock();
        }
    }

    /** Walks a snapshot and removes each key {@code keep} rejects unless it was written since; then compacts. */
    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        long removed = 0;
        Lock held = enter();
        try (Cursor cursor = cursor(null)) {
            while (cursor.next()) {
                if (!keep.keeps(cursor.key()) && removeIfUnchanged(cursor.key(), cursor.value())) {
                    removed++;
                }
            }
        } finally {
            held.unlock();
        }
        compact();
        return removed;
    }

    @Override
    public void close() throws IOException {
        Lock held = lifecycle.writeLock();
        held.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Range range : openRanges.toArray(new Range[0])) {
                range.close();
            }
            try {
                closePeer();
            } finally {
                try (lockChannel) {
                    lock.release();
                }
            }
        } finally {
            held.unlock();
        }
    }

    /** Runs {@code action} while the store is open and cannot be closed under it. */
    void whileOpen(Action action) throws IOException {
        Lock held = enter();
        try {
            action.run();
        } finally {
            held.unlock();
        }
    }

    /** Releases the directory of a store whose peer failed to open. */
    void abandon() throws IOException {
        closed = true;
        try (lockChannel) {
            lock.release();
        }
    }

    /** Releases the directory of a store whose peer failed to open, and says why it failed. */
    IOException cannotOpen(String peer, Exception e) throws IOException {
        abandon();
        return new IOException("Cannot open " + peer + " in " + directory + ": " + e.getMessage(), e);
    }

    /** The read lock of an open store, for one call; throws once the store is closed. */
    Lock enter() {
        Lock held = lifecycle.readLock();
        held.lock();
        if (closed) {
            held.unlock();
            throw new IllegalStateException(getClass().getSimpleName() + " " + directory + " is closed");
        }
        return held;
    }

    private Object stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        return stripes[(h ^ (h >>> 16)) & (WRITE_STRIPES - 1)];
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + directory + '}';
    }

    /**
     * The entries of a cursor before {@code to}, as of one instant. Synchronized so that the store's
     * close can close it while another thread reads it.
     */
    private final class Range implements CloseableIterator<Entry> {
        private final Cursor cursor;
        private final byte[] to;
        private final long nowMillis;
        private Entry next;
        private boolean done;

        Range(Cursor cursor, byte[] to, long nowMillis) {
            this.cursor = cursor;
            this.to = to;
            this.nowMillis = nowMillis;
        }

        @Override
        public synchronized boolean hasNext() {
            if (next != null) {
                return true;
            }
            if (done) {
                return false;
            }
            try {
                if (cursor.next() && (to == null || Bytes.compare(cursor.key(), to) < 0)) {
                    byte[] key = cursor.key();
                    next = VersionedValue.decode(key, cursor.value()).asOf(nowMillis);
                    return true;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            close();
            return false;
        }

        @Override
        public synchronized Entry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Entry entry = next;
            next = null;
            return entry;
        }

        @Override
        public synchronized void close() {
            if (!done) {
                done = true;
                cursor.close();
                openRanges.remove(this);
            }
        }
    }
}
