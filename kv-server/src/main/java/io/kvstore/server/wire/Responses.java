package io.kvstore.server.wire;

import io.kvstore.cluster.NotEnoughReplicasException;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.WritesStoppedException;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Status answers with a short plain-text reason, and the mapping of failures to status codes. */
public final class Responses {
    private static final Logger LOG = LoggerFactory.getLogger(Responses.class);
    /** How long a refused request's connection goes on reading (and dropping) its body before it closes. */
    static final long LINGER_SECONDS = 5;
    /** The seconds a client refused for want of capacity (503) is told to wait before retrying. */
    public static final String RETRY_AFTER_SECONDS = "1";

    private Responses() {
    }

    public static void send(HttpServerRequest request, int status, String reason) {
        HttpServerResponse response = request.response();
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8").end(reason + "\n");
    }

    /**
     * An answer after which the connection is closed, for a request whose body is refused unread (413,
     * 417, 503) or cannot be framed (400, 501). The connection is shut down before the answer, so nothing
     * the client sent after this request (a pipelined request, or a body's bytes that would parse as one)
     * is ever dispatched. What is left of the body is read and dropped (never held) until it ends or for
     * {@link #LINGER_SECONDS}, then the connection closes: closing at once, with the client's bytes
     * unread, would make the kernel answer with a reset that can destroy the answer before a client that
     * sends its body without waiting (no {@code Expect: 100-continue}) reads it.
     */
    public static void sendAndClose(HttpServerRequest request, int status, String reason) {
        HttpServerResponse response = request.response();
        if (response.ended() || response.closed()) {
            return;
        }
        if (!request.isEnded()) {
            request.handler(ignored -> { });
        }
        request.connection().shutdown(LINGER_SECONDS, TimeUnit.SECONDS);
        response.setStatusCode(status).putHeader("Connection", "close")
                .putHeader("Content-Type", "text/plain; charset=utf-8")
                .end(reason + "\n");
    }

    /** The answer to a write: {@code status} on success, else the failure's status. */
    public static void completed(HttpServerRequest request, int status, Throwable error) {
        if (error != null) {
            failure(request, error);
        } else {
            request.response().setStatusCode(status).end();
        }
    }

    /**
     * Maps a failed storage or replication call: a write this node's store refused for lack of disk
     * space, and that therefore failed, is 507; one it refused because its disk failed and stopped its
     * writes is 500 with that reason, and so is a call that failed on damage to this node's store (a key
     * in a quarantined interval), naming it; a refusal for want of capacity (this node's storage queue, or
     * replicas that answered 503) 503 + Retry-After; too few replicas otherwise 504, bad input 400, else 500.
     */
    public static void failure(HttpServerRequest request, Throwable error) {
        Throwable cause = unwrap(error);
        InsufficientStorageException full = ownStore(cause, InsufficientStorageException.class);
        WritesStoppedException stopped = ownStore(cause, WritesStoppedException.class);
        CorruptionException damage = ownStore(cause, CorruptionException.class);
        if (full != null) {
            send(request, 507, cause == full ? full.getMessage()
                    : full.getMessage() + " (" + cause.getMessage() + ")");
        } else if (stopped != null) {
            // Logged once by the store, with its cause: not again for every write it refuses.
            send(request, 500, cause == stopped ? stopped.getMessage()
                    : stopped.getMessage() + " (" + cause.getMessage() + ")");
        } else if (damage != null) {
            // The store logged the damage once, when it found it; every request it refuses need not.
            send(request, 500, cause == damage ? damage.getMessage() : damage.getMessage() + " (" + cause.getMessage() + ")");
        } else if (NotEnoughReplicasException.isOverload(cause)) {
            // Replicas (or this node's storage queue) refused it for want of capacity: a retry later may pass.
            request.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
            send(request, 503, "overloaded, retry later: " + cause.getMessage());
        } else if (cause instanceof NotEnoughReplicasException) {
            send(request, 504, cause.getMessage());
        } else if (cause instanceof IllegalArgumentException) {
            send(request, 400, cause.getMessage());
        } else {
            LOG.error("{} {} failed", request.method(), request.uri(), cause);
            send(request, 500, "internal error: " + cause);
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * This node's store's refusal of type {@code type} behind {@code cause} (for space, a stop of its
     * writes, or damage: a table that failed its checksum, a key interval refused since): itself, or a
     * replica failure of a quorum that failed (a peer's refusal arrives as its answer, never as this
     * type); null if none.
     */
    private static <T extends Throwable> T ownStore(Throwable cause, Class<T> type) {
        if (type.isInstance(cause)) {
            return type.cast(cause);
        }
        if (cause instanceof NotEnoughReplicasException quorum) {
            for (Throwable failure : quorum.failures()) {
                Throwable unwrapped = unwrap(failure);
                if (type.isInstance(unwrapped)) {
                    return type.cast(unwrapped);
                }
            }
        }
        return null;
    }
}
