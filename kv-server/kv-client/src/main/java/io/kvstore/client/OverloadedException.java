package io.kvstore.client;

import java.time.Duration;

/** 503: the node refused the request unread because it is saturated; retry after {@link #retryAfter()}. */
public final class OverloadedException extends KvClientException {
    private static final long serialVersionUID = 1L;
    private final Duration retryAfter;

    public OverloadedException(String message, String node, Duration retryAfter) {
        super(message, 503, node, null);
        this.retryAfter = retryAfter;
    }

    /** The node's {@code Retry-After}, or one second if it sent none that parses as seconds. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
