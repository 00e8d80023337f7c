package io.kvstore.kvctl;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLContext;

/**
 * kvctl's requests to the routes the Java client does not serve ({@code /v0/status}, {@code /v0/cluster},
 * {@code /v0/admin/...}), over the JDK's HTTP client: one request, one {@link Answer}, authenticated
 * with the {@link Credentials}. A node that cannot be reached, or does not answer in time, is a
 * {@link KvctlException} with {@link Kvctl#UNREACHABLE}; what it answers is the caller's to judge.
 */
final class NodeHttp {
    private final HttpClient http;
    private final Credentials credentials;
    private final Duration timeout;

    NodeHttp(Credentials credentials, SSLContext tls, Duration timeout) {
        this.credentials = credentials;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout)
                .sslContext(tls).build();
    }

    /** {@code method target} on {@code node}, answered within the timeout. */
    Answer send(String node, String method, String target) {
        return await(node, sendAsync(node, method, target));
    }

    /** {@code method target} on {@code node}, answered within the timeout; {@link #await} turns a failure into kvctl's. */
    CompletableFuture<Answer> sendAsync(String node, String method, String target) {
        return sendAsync(node, method, target, true);
    }

    /**
     * {@code method target} on {@code node}, waiting as long as the node takes: for the routes that answer
     * once their work is done (the node keeps the connection open meanwhile with interim answers).
     */
    CompletableFuture<Answer> sendUntilDone(String node, String method, String target) {
        return sendAsync(node, method, target, false);
    }

    /** The answer {@code pending} brings, or the failure to get one as a {@link KvctlException}. */
    Answer await(String node, CompletableFuture<Answer> pending) {
        try {
            return pending.get();
        } catch (ExecutionException e) {
            throw failure(node, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvctlException(Kvctl.REFUSED, "interrupted while waiting for " + node, e);
        }
    }

    private CompletableFuture<Answer> sendAsync(String node, String method, String target, boolean timed) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node + target))
                .method(method, HttpRequest.BodyPublishers.noBody());
        String[] headers = credentials.headers(method, target);
        if (headers.length > 0) {
            request.headers(headers);
        }
        if (timed) {
            request.timeout(timeout);
        }
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .thenApply(response -> new Answer(node, method, target, response.statusCode(), response.body()));
    }

    /** Why {@code node} gave no answer, as kvctl reports it. */
    KvctlException failure(String node, Throwable cause) {
        Throwable error = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        if (error instanceof KvctlException failure) {
            return failure;
        }
        if (error instanceof HttpConnectTimeoutException) {
            return new KvctlException(Kvctl.UNREACHABLE, "cannot reach " + node + ": no connection within "
                    + timeout.toSeconds() + " s", error);
        }
        if (error instanceof HttpTimeoutException) {
            return new KvctlException(Kvctl.UNREACHABLE, node + " did not answer within " + timeout.toSeconds() + " s", error);
        }
        if (error instanceof IOException) {
            return KvctlException.unreachable(node, error);
        }
        return new KvctlException(Kvctl.REFUSED, "request to " + node + " failed: " + error, error);
    }
}
