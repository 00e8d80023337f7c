package io.kvstore.client;

import io.vertx.core.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The calls of a {@link KvClient}, each waited for on the calling thread, plus text conveniences (keys
 * and values as UTF-8). Failures are thrown as the same {@link KvClientException}s. Never call these on
 * an event loop: the answer is delivered by one.
 */
public final class BlockingKvClient {
    private final KvClient client;
    private final long waitMillis;

    BlockingKvClient(KvClient client, Duration timeout) {
        this.client = client;
        // Beyond the client's own timeout, which a retry on another node may use once more.
        this.waitMillis = 2 * timeout.toMillis() + 1000;
    }

    public Optional<byte[]> get(byte[] key, CallOptions options) {
        return await(client.get(key, options));
    }

    public Optional<byte[]> get(byte[] key) {
        return get(key, CallOptions.DEFAULT);
    }

    /** The UTF-8 value of the UTF-8 key {@code key}, empty if absent or deleted. */
    public Optional<String> getString(String key) {
        return get(utf8(key)).map(value -> new String(value, StandardCharsets.UTF_8));
    }

    public void put(byte[] key, byte[] value, CallOptions options) {
        await(client.put(key, value, options));
    }

    public void put(byte[] key, byte[] value) {
        put(key, value, CallOptions.DEFAULT);
    }

    /** Stores the UTF-8 bytes of {@code value} under the UTF-8 bytes of {@code key}. */
    public void put(String key, String value) {
        put(utf8(key), utf8(value));
    }

    public void delete(byte[] key, CallOptions options) {
        await(client.delete(key, options));
    }

    public void delete(byte[] key) {
        delete(key, CallOptions.DEFAULT);
    }

    public void delete(String key) {
        delete(utf8(key));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private <T> T await(CompletionStage<T> stage) {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException("a blocking call on an event loop would wait for itself; use KvClient's asynchronous calls");
        }
        try {
            return stage.toCompletableFuture().get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KvClientException) {
                throw (KvClientException) cause;
            }
            throw new KvClientException(String.valueOf(cause), 0, null, cause);
        } catch (TimeoutException e) {
            throw new KvClientException("no answer within " + waitMillis + " ms", 0, null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvClientException("interrupted while waiting for an answer", 0, null, e);
        }
    }
}
