package io.kvstore.cluster;

import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The replica on this node: direct calls to a {@link Dao}, no network, no serialization.
 *
 * <p>Dao calls may block on disk, so they run on the given executor: a worker pool to keep them off an
 * event loop, or a direct executor ({@code Runnable::run}) where the caller may block. Every error,
 * including a rejected task, completes the stage exceptionally; nothing is thrown to the caller.
 */
public final class LocalReplica implements Replica {
    private final Dao dao;
    private final Executor executor;

    public LocalReplica(Dao dao, Executor executor) {
        this.dao = Objects.requireNonNull(dao, "dao");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        return run(() -> dao.get(key));
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        return run(() -> {
            dao.upsert(entry);
            return null;
        });
    }

    @Override
    public String toString() {
        return "LocalReplica[" + dao + ']';
    }

    private <T> CompletableFuture<T> run(DaoCall<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(call.run());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(rejected);
        }
        return result;
    }

    @FunctionalInterface
    private interface DaoCall<T> {
        T run() throws IOException;
    }
}
