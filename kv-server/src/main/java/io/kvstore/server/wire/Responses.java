package io.kvstore.server.wire;

import io.kvstore.cluster.NotEnoughReplicasException;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.InsufficientStorageException;
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
     * space, and that therefore failed, is 507; a call that failed on damage to this node's store (a key
     * in a quarantined interval) 500 naming it; too few replicas 504, bad input 400, else 500.
     */
    public static void failure(HttpServerRequest request, Throwable error) {
        Throwable cause = unwrap(error);
        InsufficientStorageException full = insufficientStorage(cause);
        if (full != null) {
            send(request, 507, cause == full ? full.getMessage()
                    : full.getMessage() + " (" + cause.getMessage() + ")");
        } else if (corruption(cause) != null) {
            // The store logged the damage once, when it found it; every request it refuses need not.
            CorruptionException damage = corruption(cause);
            send(request, 500, cause == damage ? damage.getMessage() : damage.getMessage() + " (" + cause.getMessage() + ")");
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
     * The damage to this node's store behind {@code cause} (a table that failed its checksum, a key interval
     * refused since): itself, or a replica failure of a quorum that failed; null if none.
     */
    private static CorruptionException corruption(Throwable cause) {
        if (cause instanceof CorruptionException damage) {
            return damage;
        }
        if (cause instanceof NotEnoughReplicasException quorum) {
            for (Throwable failure : quorum.failures()) {
                if (unwrap(failure) instanceof CorruptionException damage) {
                    return damage;
                }
            }
        }
        return null;
    }

    /** The store's refusal behind {@code cause}: itself, or a replica failure of a quorum that failed. */
    private static InsufficientStorageException insufficientStorage(Throwable cause) {
        if (cause instanceof InsufficientStorageException full) {
            return full;
        }
        if (cause instanceof NotEnoughReplicasException quorum) {
            for (Throwable failure : quorum.failures()) {
                if (unwrap(failure) instanceof InsufficientStorageException full) {
                    return full;
                }
            }
        }
        return null;
    }
}
