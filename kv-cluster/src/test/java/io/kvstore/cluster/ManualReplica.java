package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A replica whose answers the test completes by hand, in any order, or never. */
final class ManualReplica implements Replica {
    final List<byte[]> gets = new ArrayList<>();
    final List<CompletableFuture<Entry>> getAnswers = new ArrayList<>();
    final List<Entry> upserts = new ArrayList<>();
    final List<CompletableFuture<Void>> upsertAnswers = new ArrayList<>();

    @Override
    public synchronized CompletionStage<Entry> get(byte[] key) {
        CompletableFuture<Entry> answer = new CompletableFuture<>();
        gets.add(key);
        getAnswers.add(answer);
        return answer;
    }

    @Override
    public synchronized CompletionStage<Void> upsert(Entry entry) {
        CompletableFuture<Void> answer = new CompletableFuture<>();
        upserts.add(entry);
        upsertAnswers.add(answer);
        return answer;
    }

    synchronized CompletableFuture<Entry> lastGet() {
        return getAnswers.get(getAnswers.size() - 1);
    }

    synchronized CompletableFuture<Void> lastUpsert() {
        return upsertAnswers.get(upsertAnswers.size() - 1);
    }

    synchronized int requests() {
        return gets.size() + upserts.size();
    }
}
