package io.kvstore.server.security;

import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An internode {@link HttpClient} whose requests are signed like the web clients' ({@link RequestSigner}),
 * for requests that stream their answer. The signature covers an empty body: the body of a request
 * made here is written after it is signed, and a node refuses one that does not match (send bodies
 * through a web client from {@link io.kvstore.server.internode.InternodeClients}).
 */
public final class SigningHttpClient implements HttpClient {
    private final HttpClient delegate;
    private final RequestSignature signature;
    private final LongSupplier clock;

    public SigningHttpClient(HttpClient delegate, RequestSignature signature, LongSupplier clock) {
        this.delegate = delegate;
        this.signature = signature;
        this.clock = clock;
    }

    @Override
    public Future<HttpClientRequest> request(RequestOptions options) {
        String date = Long.toString(clock.getAsLong());
        String digest = RequestSignature.EMPTY_BODY_DIGEST;
        RequestOptions signed = new RequestOptions(options)
                .putHeader(RequestSignature.DATE_HEADER, date)
                .putHeader(RequestSignature.CONTENT_HEADER, digest)
                .putHeader(HttpHeaders.AUTHORIZATION, signature.sign(options.getMethod().name(), options.getURI(), date, digest));
        return delegate.request(signed);
    }

    @Override
    public Future<Void> shutdown(long timeout, TimeUnit unit) {
        return delegate.shutdown(timeout, unit);
    }
}
