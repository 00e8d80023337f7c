package io.kvstore.core.lsm;

import io.kvstore.core.table.SsTable;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An immutable view of the store: memtables and tables, each list newest first. Readers pin a version
 * for as long as they read (a get, or an open range iterator); the version pins its tables, so files
 * compacted away stay until the last reader is done.
 */
final class Version {
    final List<MemTable> memtables;
    final List<SsTable> tables;
    /** Starts at 1: the store's own reference while this is the current version. */
    private final AtomicInteger refs = new AtomicInteger(1);

    Version(List<MemTable> memtables, List<SsTable> tables) {
        this.memtables = List.copyOf(memtables);
        this.tables = List.copyOf(tables);
        for (SsTable t : this.tables) {
            if (!t.acquire()) {
                throw new IllegalStateException("table " + t.file() + " was released before its version was built");
            }
        }
    }

    boolean tryAcquire() {
        for (int r = refs.get(); ; r = refs.get()) {
            if (r <= 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            for (SsTable t : tables) {
                t.release();
            }
        }
    }
}
