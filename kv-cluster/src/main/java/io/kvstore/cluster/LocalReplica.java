package io.kvstore.cluster;

import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The replica on this node: direct calls to a {@link Dao}, no network, no serialization.
 *
 * <p>Calls go through {@link Dao#getAsync} and {@link Dao#upsertAsync}: the engine answers on the
 * caller's thread what cannot block and runs the rest on the given executor, a worker pool to keep
 * disk waits off an event loop, or a direct executor ({@code Runnable::run}) where the caller may
 * block. Every error, including a rejected task, completes the stage exceptionally.
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
        return dao.getAsync(key, executor);
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        return dao.upsertAsync(entry, executor);
    }

    @Override
    public String toString() {
        return "LocalReplica[" + dao + ']';
    }
}
