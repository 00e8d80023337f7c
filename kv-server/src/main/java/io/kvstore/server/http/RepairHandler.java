package io.kvstore.server.http;

import io.kvstore.cluster.internal.repair.KeyInterval;
import io.kvstore.cluster.internal.repair.RepairBusyException;
import io.kvstore.cluster.internal.repair.RepairExchange;
import io.kvstore.cluster.internal.repair.RepairResponder;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.RepairProtocol;
import io.kvstore.server.wire.Responses;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Serves {@link RepairProtocol} from this node's {@link RepairResponder}. Handlers only parse and
 * answer on the event loop; scans and store calls run on the responder's executor.
 */
public final class RepairHandler {
    /**
     * How long a poll for a tree being built waits before answering 202, unless half the idle timeout
     * is shorter: the poll's connection carries nothing meanwhile and must not be closed as idle.
     */
    static final long TREE_POLL_MILLIS = 5_000;
    private final RepairResponder responder;
    private final long treePollMillis;
    private final int maxKeyBytes;
    private final int maxBodyBytes;
    private final BodyMemoryBudget bodyBudget;

    public RepairHandler(RepairResponder responder, int maxKeyBytes, int maxValueBytes, BodyMemoryBudget bodyBudget,
            Duration idleTimeout) {
        this.responder = responder;
        this.treePollMillis = Math.max(1, Math.min(TREE_POLL_MILLIS, idleTimeout.toMillis() / 2));
        this.maxKeyBytes = maxKeyBytes;
        // An apply body holds a batch of entries, which may end with one as large as a value may be.
        this.maxBodyBytes = (int) Math.min(Integer.MAX_VALUE - 8,
                RepairExchange.BYTES_PER_BATCH + (long) maxValueBytes + RepairExchange.KEYS_PER_BATCH * (maxKeyBytes + 32L) + (1 << 20));
        this.bodyBudget = bodyBudget;
    }

    void handle(HttpServerRequest request) {
        String path = request.path();
        HttpMethod method = request.method();
        if (path.equals(RepairProtocol.TREE)) {
            tree(request, method);
            return;
        }
        if (method != HttpMethod.POST) {
            request.response().putHeader("Allow", "POST");
            Responses.send(request, 405, "method " + method + " not allowed on " + path);
            return;
        }
        String query = request.query();
        switch (path) {
            case RepairProtocol.HASHES: {
                long tree = number(query, RepairProtocol.TREE_ID, 0, Long.MAX_VALUE);
                int level = (int) number(query, RepairProtocol.LEVEL, 0, 30);
                withBody(request, "hash request", body -> responder.hashes(tree,
                        level, body.ints(RepairExchange.MAX_INDEXES_PER_CALL)).thenApply(RepairProtocol::longs));
                break;
            }
            case RepairProtocol.VERSIONS: {
                long tree = number(query, RepairProtocol.TREE_ID, 0, Long.MAX_VALUE);
                int max = (int) number(query, RepairProtocol.MAX, 1, 1 << 16);
                byte[] after = optionalKey(query, RepairProtocol.AFTER);
                byte[] upTo = optionalKey(query, RepairProtocol.UP_TO);
                BodyReader.read(request, maxBodyBytes, bodyBudget, body -> answer(request,
                        responder.versions(tree, RepairProtocol.segments(body), after, upTo, max).thenApply(RepairProtocol::page)));
                break;
            }
            case RepairProtocol.ENTRIES: {
                long maxBytes = number(query, RepairProtocol.MAX_BYTES, 1, RepairProtocol.MAX_ENTRIES_BYTES);
                withBody(request, "key list", body -> responder.entries(body.keys(RepairExchange.KEYS_PER_BATCH), maxBytes)
                        .thenApply(RepairProtocol::batch));
                break;
            }
            case RepairProtocol.APPLY:
                if (ingest(query)) {
                    withBody(request, "entry list", body -> responder.ingest(body.entries()).thenApply(done -> null));
                } else {
                    withBody(request, "entry list", body -> responder.apply(body.entries()).thenApply(done -> null));
                }
                break;
            default:
                Responses.send(request, 400, "unknown path " + path);
        }
    }

    /** Whether an apply asks to ingest: {@code ingest=true}; any other value of it is a bad request. */
    private static boolean ingest(String query) {
        String value = QueryParameters.text(query, RepairProtocol.INGEST);
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw new IllegalArgumentException(RepairProtocol.INGEST + " must be true or false, not '" + value + "'");
    }

    private void tree(HttpServerRequest request, HttpMethod method) {
        String query = request.query();
        if (method == HttpMethod.POST) {
            String partner = QueryParameters.text(query, RepairProtocol.PARTNER);
            if (partner == null || partner.isEmpty()) {
                Responses.send(request, 400, "missing " + RepairProtocol.PARTNER);
                return;
            }
            int replicationFactor = (int) number(query, RepairProtocol.REPLICATION_FACTOR, 1, Integer.MAX_VALUE);
            int depth = (int) number(query, RepairProtocol.DEPTH, 1, Integer.MAX_VALUE);
            KeyInterval interval = RepairProtocol.interval(query, maxKeyBytes);
            try {
                long id = responder.startTree(partner, replicationFactor, depth, interval);
                request.response().setStatusCode(200).end(Long.toString(id));
            } catch (RepairBusyException e) {
                busy(request, e);
            }
        } else if (method == HttpMethod.GET) {
            long id = number(query, RepairProtocol.TREE_ID, 0, Long.MAX_VALUE);
            Context context = Vertx.currentContext();
            long timer = context.owner().setTimer(treePollMillis, fired -> Responses.send(request, 202, "still building"));
            Future.fromCompletionStage(responder.treeBuilt(id), context).onComplete(built -> {
                if (context.owner().cancelTimer(timer)) {
                    if (built.failed()) {
                        Responses.failure(request, built.cause());
                    } else {
                        request.response().setStatusCode(200).end(Long.toString(built.result()));
                    }
                }
            });
        } else if (method == HttpMethod.DELETE) {
            long id = number(query, RepairProtocol.TREE_ID, 0, Long.MAX_VALUE);
            responder.closeTree(id);
            request.response().setStatusCode(204).end();
        } else {
            request.response().putHeader("Allow", "POST, GET, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on " + RepairProtocol.TREE);
        }
    }

    /** Reads the body, parses it with {@code call} (400 if malformed) and answers with what the call gives. */
    private void withBody(HttpServerRequest request, String what, Function<RepairProtocol.Reader, CompletionStage<Buffer>> call) {
        BodyReader.read(request, maxBodyBytes, bodyBudget, body -> {
            CompletionStage<Buffer> answer;
            try {
                answer = call.apply(new RepairProtocol.Reader(body, what, maxKeyBytes));
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return Future.succeededFuture();
            }
            return answer(request, answer);
        });
    }

    private static Future<Buffer> answer(HttpServerRequest request, CompletionStage<Buffer> answer) {
        return Future.fromCompletionStage(answer, Vertx.currentContext()).onComplete(done -> {
            if (done.failed()) {
                Throwable cause = done.cause() instanceof CompletionException && done.cause().getCause() != null
                        ? done.cause().getCause() : done.cause();
                if (cause instanceof RepairBusyException) {
                    busy(request, (RepairBusyException) cause);
                } else {
                    Responses.failure(request, cause);
                }
            } else if (done.result() == null) {
                request.response().setStatusCode(204).end();
            } else {
                request.response().setStatusCode(200).putHeader("Content-Type", "application/octet-stream").end(done.result());
            }
        });
    }

    private static void busy(HttpServerRequest request, RepairBusyException e) {
        request.response().putHeader("Retry-After", "10");
        Responses.send(request, 503, e.getMessage());
    }

    private static byte[] optionalKey(String query, String name) {
        String text = QueryParameters.text(query, name);
        return text == null ? null : RepairProtocol.decodeKey(name, text);
    }

    /** @throws IllegalArgumentException if the parameter is missing, not a number or outside {@code [min, max]} */
    private static long number(String query, String name, long min, long max) {
        String text = QueryParameters.text(query, name);
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("missing " + name);
        }
        long value = Decimal.parse(text, name);
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " outside [" + min + ", " + max + "]");
        }
        return value;
    }
}
