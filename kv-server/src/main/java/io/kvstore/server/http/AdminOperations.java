package io.kvstore.server.http;

import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.Responses;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The runs of one kind of long admin operation on this node since it started, the last
 * {@value #KEPT} of them, and the routes that report them: {@code GET} on the operation's route with
 * {@code ?id=N}, or without for the one running (else the latest), and {@code ?async=true} on its
 * {@code POST}, which answers {@code 202} with the id as soon as the run is under way.
 */
public final class AdminOperations {
    static final int KEPT = 16;

    private final String operation;
    private final String node;
    /** Newest first; guarded by this. */
    private final Deque<AdminOperation> runs = new ArrayDeque<>();
    private long lastId;

    public AdminOperations(String operation, String node) {
        this.operation = operation;
        this.node = node;
    }

    /** A new run, listed from now on; ids grow with the wall clock, so they stay unique across restarts. */
    public synchronized AdminOperation start() {
        lastId = Math.max(lastId + 1, System.currentTimeMillis());
        AdminOperation run = new AdminOperation(lastId, operation, node);
        runs.addFirst(run);
        if (runs.size() > KEPT) {
            runs.removeLast();
        }
        return run;
    }

    /**
     * {@code GET} of the run {@code ?id=N} (404 if this node does not list it), or without an id of the
     * run under way, else the latest (404 if none ran since the node started); 400 for an id that is not
     * a number.
     */
    public void status(HttpServerRequest request) {
        String id = QueryParameters.text(request.query(), "id");
        AdminOperation run;
        if (id == null) {
            run = current();
            if (run == null) {
                Responses.send(request, 404, "no " + operation + " ran on " + node + " since it started");
                return;
            }
        } else {
            long wanted;
            try {
                wanted = Decimal.parse(id, "id");
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return;
            }
            run = find(wanted);
            if (run == null) {
                Responses.send(request, 404, "no " + operation + " " + wanted + " on " + node + " (it lists its last "
                        + KEPT + " since it started)");
                return;
            }
        }
        request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                .end(run.toJson().encode() + "\n");
    }

    /** Answers {@code 202} with the run's id and node, for a {@code POST ...?async=true}. */
    public static void accepted(HttpServerRequest request, AdminOperation run) {
        request.response().setStatusCode(202).putHeader("Content-Type", "application/json")
                .end(run.toJson().encode() + "\n");
    }

    /**
     * The request's {@code async} parameter: true or false; anything else is answered {@code 400} here
     * and gives null.
     */
    public static Boolean async(HttpServerRequest request) {
        String async = QueryParameters.text(request.query(), "async");
        if (async != null && !async.equals("true") && !async.equals("false")) {
            Responses.send(request, 400, "async must be true or false, got '" + async + "'");
            return null;
        }
        return "true".equals(async);
    }

    private synchronized AdminOperation current() {
        for (AdminOperation run : runs) {
            if (run.running()) {
                return run;
            }
        }
        return runs.peekFirst();
    }

    private synchronized AdminOperation find(long id) {
        for (AdminOperation run : runs) {
            if (run.id() == id) {
                return run;
            }
        }
        return null;
    }
}
