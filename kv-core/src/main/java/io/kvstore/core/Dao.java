package io.kvstore.core;

import io.kvstore.core.internal.util.SortedBatch;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A sorted, versioned key-value store: the storage interface every engine of kvstore implements.
 *
 * <p>Each key has at most one visible version: among all versions written for a key, the one
 * {@link Entry#compareVersions} ranks first: the highest {@linkplain Entry#timestamp() timestamp}, then
 * a tombstone over a value, then the larger value. The winner does not depend on the order of the
 * writes, so a replica that receives an older write after a newer one keeps the newer one, and
 * replicas that see the same writes agree, which is what replication needs. Tombstones and timestamps are visible through this interface;
 * {@link KvStore} hides them for embedders who want a plain map.
 *
 * <p>Implementations are thread-safe. Keys are compared as unsigned bytes ({@link Bytes#ORDER}).
 * An acknowledged write (a method that returned normally) survives a process crash.
 */
public interface Dao extends Closeable {

    /**
     * Returns the visible version of {@code key}, which may be a tombstone, or {@code null} if the
     * store holds no version of it.
     */
    Entry get(byte[] key) throws IOException;

    /** Stores {@code entry} (a value or a tombstone); see the class comment for which version wins. */
    void upsert(Entry entry) throws IOException;

    /**
     * Stores {@code entries}, given in strictly increasing key order, as a bulk load: each entry meets the
     * versions the store holds as an {@link #upsert} of it would (the class comment), but an engine may
     * write the batch as sorted tables straight into its levels, never through its write-ahead log or
     * memtable, as RocksDB's external file ingestion does; the LSM engine does so under leveled
     * compaction. Once it returns, the entries are visible and durable whatever the sync policy where
     * the engine ingested them as tables, and as durable as its writes otherwise. This default upserts
     * them one by one.
     *
     * @throws IllegalArgumentException if a key is not greater than the one before it; nothing is stored
     */
    default void ingest(List<Entry> entries) throws IOException {
        SortedBatch.requireStrictlyIncreasing(entries);
        for (Entry entry : entries) {
            upsert(entry);
        }
    }

    /**
     * {@link #get} for a caller that must not block, such as an event loop: an engine answers on the
     * calling thread when the read cannot wait for the disk, and runs it on {@code mayBlock} otherwise.
     * Every failure, a rejected task included, completes the future exceptionally. This default always
     * uses {@code mayBlock}.
     */
    default CompletableFuture<Entry> getAsync(byte[] key, Executor mayBlock) {
        return Blocking.call(() -> get(key), mayBlock);
    }

    /**
     * {@link #upsert} for a caller that must not block: an engine stores the entry on the calling
     * thread when that needs no waiting (no sync to the device, no flush backlog, no other writer in
     * the way), and on {@code mayBlock} otherwise. Failures complete the future exceptionally. This
     * default always uses {@code mayBlock}.
     */
    default CompletableFuture<Void> upsertAsync(Entry entry, Executor mayBlock) {
        return Blocking.call(() -> {
            upsert(entry);
            return null;
        }, mayBlock);
    }

    /**
     * Returns the visible versions of keys in {@code [from, to)}, tombstones included, in key order.
     * Either bound may be {@code null} for an open end. The iterator reads a consistent snapshot,
     * lazily, with memory independent of the size of the range, and must be closed.
     */
    CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException;

    /**
     * The same entries as {@link #range}, for a pass over much of the store (a repair scan, a stream
     * of keys to another node): the blocks it reads do not enter the engine's block cache, so that the
     * pass does not push out the blocks point reads keep coming back to. This default is {@link #range}.
     */
    default CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return range(from, to);
    }

    /**
     * Sizes, table counts and counters of the store, read from memory: cheap enough for a caller that
     * must not block. This default knows nothing ({@link DaoProperties#UNKNOWN}).
     */
    default DaoProperties properties() {
        return DaoProperties.UNKNOWN;
    }

    /**
     * The free space on the store's disk, whether writes are refused for the lack of it or stopped
     * because it failed, from memory; must not block. This default knows nothing ({@link DiskSpace#UNKNOWN}).
     */
    default DiskSpace diskSpace() {
        return DiskSpace.UNKNOWN;
    }

    /**
     * The key intervals the store refuses because a table of them was damaged, and whether it stopped
     * serving after a disk error; from memory, so a caller that must not block may ask. This default
     * knows nothing ({@link StoreHealth#UNKNOWN}).
     */
    default StoreHealth health() {
        return StoreHealth.UNKNOWN;
    }

    /**
     * Serves again every {@linkplain #health() quarantined interval} that lies wholly within
     * {@code [from, to)} ({@code null} bounds are open), and returns how many it healed. Call it once
     * the interval's keys have been written again from another copy (a cluster's repair refetches them
     * from the other replicas): until then the store holds only what was beneath the damaged table, and
     * its reads of the interval would return older versions and deleted keys. A lone store has no other
     * copy: its interval stays refused until the operator heals it (accepting what is left) or restores
     * the store. The healing outlives a restart. This default heals nothing.
     */
    default int healInterval(byte[] from, byte[] to) throws IOException {
        return 0;
    }

    /**
     * Reads every live table now and checks every checksum it holds, at most {@code bytesPerSecond}
     * ({@code 0}: no limit), and returns what it checked and found; blocks until done. A damaged table
     * is quarantined as a failed read would have it ({@link #healInterval}). The store also scrubs
     * itself in the background ({@link DaoOptions#scrubPeriod()}). This default cannot scrub and throws
     * {@link UnsupportedOperationException}.
     */
    default ScrubReport scrub(long bytesPerSecond) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not scrub its files");
    }

    /** Makes every write so far durable in immutable files (no-op where not applicable). */
    void flush() throws IOException;

    /** Compacts the whole store now, dropping shadowed versions and tombstones where safe. */
    void compact() throws IOException;

    /**
     * Removes from the store, physically, every version of each key that {@code keep} rejects, and
     * returns how many keys it removed. No tombstone is written for them: the store forgets those keys
     * as if it had never seen them, so a version of one written again later (as a cluster streams a key
     * back to a node that owns it again) is stored as any first write is. Versions written while the
     * cleanup runs are kept whatever their key. Tombstones and expiries of the kept keys follow the
     * usual rules. Heavy (a rewrite of the whole store, throttled like compactions); blocks until done.
     */
    long cleanup(KeyFilter keep) throws IOException;

    /** Flushes what must be flushed, releases files and locks. Idempotent. */
    @Override
    void close() throws IOException;
}
