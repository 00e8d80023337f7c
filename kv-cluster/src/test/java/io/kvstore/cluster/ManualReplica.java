package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A replica whose answers the test gives by hand, in any order, or never. */
final class ManualReplica implements Replica {
    final List<CompletableFuture<Entry>> gets = new ArrayList<>();
    final List<CompletableFuture<Void>> upserts = new ArrayList<>();
    final List<Entry> written = new ArrayList<>();

    @Override
    public synchronized CompletionStage<Entry> get(byte[] key) {
        CompletableFuture<Entry> f = new CompletableFuture<>();
        gets.add(f);
        return f;
    }

    @Override
    public synchronized CompletionStage<Void> upsert(Entry entry) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        upserts.add(f);
        written.add(entry);
        return f;
    }
}
