package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An in-memory replica that keeps the newest version per key (as a Dao does) and can be taken down:
 * then every request fails at once, like a refused connection.
 */
final class MemoryReplica implements Replica {
    private final TreeMap<byte[], Entry> data = new TreeMap<>(Bytes.ORDER);
    volatile boolean down;

    @Override
    public synchronized CompletionStage<Entry> get(byte[] key) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("replica down"));
        }
        return CompletableFuture.completedFuture(data.get(key));
    }

    @Override
    public synchronized CompletionStage<Void> upsert(Entry entry) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("replica down"));
        }
        Entry current = data.get(entry.key());
        if (current == null || entry.timestamp() >= current.timestamp()) {
            data.put(entry.key(), entry);
        }
        return CompletableFuture.completedFuture(null);
    }

    synchronized Entry stored(byte[] key) {
        return data.get(key);
    }
}
