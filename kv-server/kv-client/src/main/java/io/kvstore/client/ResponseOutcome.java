package io.kvstore.client;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * What a node's answer means for one kind of request: the expected status becomes the result, any
 * other status a {@link KvClientException} of the matching type.
 */
@FunctionalInterface
interface ResponseOutcome<T> {

    /** GET: 200 is the value, 404 absent. */
    ResponseOutcome<Optional<byte[]>> GET = (response, body, node) -> {
        int status = response.statusCode();
        if (status == 200) {
            return Optional.of(body.getBytes());
        }
        if (status == 404) {
            return Optional.empty();
        }
        throw failure(response, body, node, "GET");
    };
    /** PUT: 201 stored. */
    ResponseOutcome<Void> PUT = (response, body, node) -> {
        if (response.statusCode() == 201) {
            return null;
        }
        throw failure(response, body, node, "PUT");
    };
    /** DELETE: 202 stored the tombstone. */
    ResponseOutcome<Void> DELETE = (response, body, node) -> {
        if (response.statusCode() == 202) {
            return null;
        }
        throw failure(response, body, node, "DELETE");
    };

    T of(HttpClientResponse response, Buffer body, String node);

    /** The exception for an unexpected answer: the status's own type, with the node's reason. */
    static KvClientException failure(HttpClientResponse response, Buffer body, String node, String what) {
        return failure(response.statusCode(), response.getHeader("Retry-After"),
                body == null ? "" : body.toString(StandardCharsets.UTF_8).trim(), node, what);
    }

    static KvClientException failure(int status, String retryAfter, String reason, String node, String what) {
        String message = what + " on " + node + ": " + status + (reason.isEmpty() ? "" : " " + reason);
        switch (status) {
            case 504:
                return new QuorumNotReachedException(message, node);
            case 503:
                return new OverloadedException(message, node, retryAfter(retryAfter));
            case 400:
            case 413:
            case 414:
                return new InvalidRequestException(message, status, node);
            default:
                return new KvClientException(message, status, node, null);
        }
    }

    /** {@code Retry-After} in seconds (the only form a node sends); one second when absent or a date. */
    private static Duration retryAfter(String header) {
        if (header != null) {
            try {
                return Duration.ofSeconds(Math.max(0, Long.parseLong(header.trim())));
            } catch (NumberFormatException e) {
                // an HTTP date: not worth parsing for a hint
            }
        }
        return Duration.ofSeconds(1);
    }
}
