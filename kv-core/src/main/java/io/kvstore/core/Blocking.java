package io.kvstore.core;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** Runs a storage call that may block on an executor where blocking is allowed, as a future. */
final class Blocking {

    @FunctionalInterface
    interface Call<T> {
        T run() throws IOException;
    }

    private Blocking() {
    }

    /** Completes with the call's result or failure; a task the executor rejects fails the future too. */
    static <T> CompletableFuture<T> call(Call<T> call, Executor mayBlock) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            mayBlock.execute(() -> {
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
}
