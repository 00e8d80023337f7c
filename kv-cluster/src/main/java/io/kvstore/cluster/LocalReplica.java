package io.kvstore.cluster;

import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The replica on this node: direct calls into the Dao, no network and no serialization. The executor
 * decides where a call runs: {@code Runnable::run} for in-line calls (the Dao answers from memory or
 * page cache), or a pool where blocking is allowed.
 */
public final class LocalReplica implements Replica {
    private final Dao dao;
    private final Executor executor;

    public LocalReplica(Dao dao, Executor executor) {
        this.dao = dao;
        this.executor = executor;
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        CompletableFuture<Entry> result = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                result.complete(dao.get(key));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                dao.upsert(entry);
                result.complete(null);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }
}
