package io.kvstore.bench.load;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A store that keeps nothing: every write is acknowledged on the calling thread and forgotten, every
 * read finds nothing. Beneath a real node ({@link DiscardingNode}) it leaves the server's own request
 * path, coordinator and replication, the floor a store's figures are measured against.
 */
final class DiscardingDao implements Dao {
    private static final CompletableFuture<Entry> NOTHING = CompletableFuture.completedFuture(null);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    @Override
    public Entry get(byte[] key) {
        return null;
    }

    @Override
    public void upsert(Entry entry) {
    }

    @Override
    public CompletableFuture<Entry> getAsync(byte[] key, Executor mayBlock) {
        return NOTHING;
    }

    @Override
    public CompletableFuture<Void> upsertAsync(Entry entry, Executor mayBlock) {
        return DONE;
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) {
        return CloseableIterator.empty();
    }

    @Override
    public void flush() {
    }

    @Override
    public void compact() {
    }

    @Override
    public long cleanup(KeyFilter keep) {
        return 0;
    }

    @Override
    public void close() {
    }
}
