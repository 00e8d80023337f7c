package io.kvstore.server.membership;

import io.kvstore.cluster.internal.membership.ChangeOperation;
import io.kvstore.cluster.internal.membership.ChangeRefusedException;
import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.internal.membership.KeyMovementCodec;
import io.kvstore.cluster.internal.membership.MapChange;
import io.kvstore.cluster.internal.membership.MapChanges;
import io.kvstore.cluster.internal.membership.MapRelay;
import io.kvstore.cluster.internal.membership.StreamProgress;
import io.kvstore.cluster.internal.metadata.EpochRequest;
import io.kvstore.cluster.internal.metadata.MetadataGroup;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.server.http.AdminOperations;
import io.kvstore.server.http.BodyMemoryBudget;
import io.kvstore.server.http.BodyReader;
import io.kvstore.server.http.IdleHeartbeat;
import io.kvstore.server.internode.MembershipClient;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.EpochVotes;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.PassOnList;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The membership routes. Public: {@code GET /v0/cluster} (the map as JSON),
 * {@code POST /v0/admin/decommission} and {@code DELETE /v0/admin/nodes?url=U}, which answer once the
 * change is over, and {@code POST /v0/admin/cleanup}, which answers once this node dropped the keys it
 * no longer owns. Internal ({@code /internal/v0/...}): the map (GET, and PUT to push one), change
 * requests to the claimant and their progress, the streams of keys a change asks for, and the cleanup
 * the claimant asks for when a change completed.
 */
public final class MembershipHandler implements Handler<HttpServerRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipHandler.class);
    /** The most time a pusher may give this node to hand its map on. */
    static final long MAX_PASS_ON_MILLIS = 60_000;

    /**
     * Limit of a pushed map's or a stream request's body, apart from the values' limit: a map of a
     * thousand nodes of 256 tokens each is about 5 MB of JSON.
     */
    static final int MAX_BODY_BYTES = 16 << 20;
    private static final long POLL_MILLIS = 200;
    /** How long the node waiting on a change goes on asking a claimant that does not answer. */
    private static final long CLAIMANT_SILENCE_MILLIS = 30_000;
    /** A stream's name ({@link KeyMovement#streamName()}): a change's epoch, and a failover plan's failed sources. */
    private static final java.util.regex.Pattern STREAM_NAME = java.util.regex.Pattern.compile("[0-9]{1,19}(-without-[0-9]{1,9}(\\.[0-9]{1,9})*)?");
    private static final int MAX_STREAM_NAME = 4096;

    private final Membership membership;
    private final MapChanges changes;
    private final NodeCleanup cleanup;
    private final Vertx vertx;
    /** The node's budget for buffered bodies, shared with every route that buffers one. */
    private final BodyMemoryBudget bodyBudget;
    private final Duration idleTimeout;

    public MembershipHandler(Membership membership, MapChanges changes, NodeCleanup cleanup, Vertx vertx, Duration idleTimeout,
                      BodyMemoryBudget bodyBudget) {
        this.bodyBudget = bodyBudget;
        this.membership = membership;
        this.changes = changes;
        this.cleanup = cleanup;
        this.vertx = vertx;
        this.idleTimeout = idleTimeout;
    }

    @Override
    public void handle(HttpServerRequest request) {
        observeEpoch(request);
        if (request.path().startsWith(Routes.CHANGES + "/")) {
            if (allow(request, HttpMethod.DELETE)) {
                cancelChange(request, request.path().substring(Routes.CHANGES.length() + 1));
            }
            return;
        }
        switch (request.path()) {
            case Routes.CLUSTER:
                if (allow(request, HttpMethod.GET)) {
                    sendClusterView(request);
                }
                break;
            case Routes.MEMBERSHIP_EPOCH:
                if (allow(request, HttpMethod.POST)) {
                    epochVote(request);
                }
                break;
            case Routes.DRAINING:
                if (request.method() == HttpMethod.DELETE) {
                    membership.drain().peerServing(request);
                } else if (request.method() == HttpMethod.POST) {
                    membership.drain().peerDraining(request);
                } else {
                    request.response().putHeader("Allow", "POST, DELETE");
                    Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
                }
                break;
            case Routes.MAP:
                if (request.method() == HttpMethod.PUT) {
                    pushed(request);
                } else if (allow(request, HttpMethod.GET)) {
                    sendMap(request);
                }
                break;
            case Routes.DECOMMISSION:
                if (allow(request, HttpMethod.POST)) {
                    operate(request, ChangeOperation.DECOMMISSION, membership.self(), false);
                }
                break;
            case Routes.NODES:
                if (allow(request, HttpMethod.DELETE)) {
                    String url = QueryParameters.text(request.query(), "url");
                    String force = QueryParameters.text(request.query(), "force");
                    if (url == null || url.isEmpty()) {
                        Responses.send(request, 400, "missing url of the node to remove");
                    } else if (force != null && !force.equals("true") && !force.equals("false")) {
                        Responses.send(request, 400, "force must be true or false, got '" + force + "'");
                    } else {
                        operate(request, ChangeOperation.REMOVE, url, "true".equals(force));
                    }
                }
                break;
            case Routes.CLEANUP:
                if (request.method() == HttpMethod.GET) {
                    cleanup.runs().status(request);
                } else if (request.method() == HttpMethod.POST) {
                    cleanUp(request);
                } else {
                    request.response().putHeader("Allow", "GET, POST");
                    Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
                }
                break;
            case Routes.MEMBERSHIP_CLEANUP:
                if (allow(request, HttpMethod.POST)) {
                    cleanupRequested(request);
                }
                break;
            case Routes.CHANGES:
                if (allow(request, HttpMethod.GET)) {
                    listChanges(request);
                }
                break;
            case Routes.MEMBERSHIP_CHANGE:
                if (request.method() == HttpMethod.POST) {
                    changeRequested(request);
                } else if (request.method() == HttpMethod.DELETE) {
                    cancelHere(request);
                } else if (allow(request, HttpMethod.GET)) {
                    changeStatus(request);
                }
                break;
            default:
                if (request.method() == HttpMethod.POST) {
                    streamRequested(request);
                } else if (allow(request, HttpMethod.GET)) {
                    streamStatus(request);
                }
        }
    }

    private void observeEpoch(HttpServerRequest request) {
        String epoch = request.getHeader(Headers.EPOCH);
        if (epoch != null) {
            try {
                membership.observe(Decimal.parse(epoch, Headers.EPOCH), request.getHeader(Headers.NODE));
            } catch (IllegalArgumentException e) {
                // Not ours to refuse here: the epoch only hints that a newer map exists.
            }
        }
    }

    private static boolean allow(HttpServerRequest request, HttpMethod method) {
        if (request.method() == method) {
            return true;
        }
        request.response().putHeader("Allow", method.name());
        Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
        return false;
    }

    /**
     * {@code GET /v0/cluster}: the map, with the metadata group that decides the next epoch, its
     * majority, the epoch last committed and, on the node driving one, the change in progress and its step.
     */
    private void sendClusterView(HttpServerRequest request) {
        ClusterMap map = membership.map();
        MetadataGroup group = MetadataGroup.after(map);
        JsonObject view = new JsonObject(ClusterMapCodec.toJson(map)).put("metadata", new JsonObject()
                .put("protocol", "paxos-per-epoch")
                .put("group", new JsonArray(group.members()))
                .put("majority", group.quorum())
                .put("committedEpoch", map.epoch())
                .put("changeInProgress", map.inTransition()));
        changes.running().ifPresent(change -> view.getJsonObject("metadata").put("change", new JsonObject()
                .put("id", change.id()).put("operation", change.operation().id()).put("node", change.node())
                .put("step", change.step())));
        request.response().setStatusCode(200).putHeader("Content-Type", "application/json").end(view.encode());
    }

    /**
     * A proposer's request to this node's acceptor of the epoch log. The body is signed like every
     * internal body; an accept must carry a map of the epoch it is for.
     */
    private void epochVote(HttpServerRequest request) {
        BodyReader.read(request, MAX_BODY_BYTES, bodyBudget, body -> {
            EpochRequest vote;
            try {
                vote = EpochVotes.requestFromJson(new String(body, StandardCharsets.UTF_8));
                if (vote instanceof EpochRequest.Accept accept) {
                    ClusterMap proposed = ClusterMapCodec.fromJson(new String(accept.value(), StandardCharsets.UTF_8));
                    if (proposed.epoch() != accept.epoch()) {
                        throw new IllegalArgumentException("an accept for epoch " + accept.epoch() + " carries a map of epoch "
                                + proposed.epoch());
                    }
                }
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return Future.succeededFuture();
            }
            return blocking(() -> membership.acceptor().handle(vote)).onComplete(done -> {
                if (done.failed()) {
                    Responses.failure(request, done.cause());
                } else {
                    request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                            .end(EpochVotes.toJson(done.result()));
                }
            });
        });
    }

    private void sendMap(HttpServerRequest request) {
        request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                .end(ClusterMapCodec.toJson(membership.map()));
    }

    /**
     * A map a member pushed. Its body is read within the body limits and against its signed digest
     * ({@link BodyReader}), as every internal body is: a signature replayed with another map is refused.
     */
    private void pushed(HttpServerRequest request) {
        String passOnText = QueryParameters.text(request.query(), "passOn");
        String millisText = QueryParameters.text(request.query(), "passOnMillis");
        long passOnMillis;
        try {
            if ((passOnText == null) != (millisText == null)) {
                throw new IllegalArgumentException("passOn and passOnMillis go together");
            }
            passOnMillis = millisText == null ? 0 : Decimal.parse(millisText, "passOnMillis");
            if (passOnMillis > MAX_PASS_ON_MILLIS) {
                throw new IllegalArgumentException("passOnMillis must be at most " + MAX_PASS_ON_MILLIS + ", got " + passOnMillis);
            }
        } catch (IllegalArgumentException e) {
            Responses.send(request, 400, e.getMessage());
            return;
        }
        BodyReader.read(request, MAX_BODY_BYTES, bodyBudget, body -> {
            ClusterMap map;
            List<String> passOn;
            try {
                map = ClusterMapCodec.fromJson(new String(body, StandardCharsets.UTF_8));
                passOn = new ArrayList<>(passOnText == null ? List.of() : PassOnList.decode(passOnText, map));
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return Future.succeededFuture();
            }
            passOn.remove(membership.self());
            return blocking(() -> membership.adopt(map)).onComplete(done -> {
                if (done.failed()) {
                    Responses.failure(request, done.cause());
                } else if (passOn.isEmpty()) {
                    request.response().setStatusCode(204).end();
                } else {
                    // Handed on as the pusher asked, answered once those nodes answered or their time ran out.
                    Context context = Vertx.currentContext();
                    membership.handOn(map, passOn, passOnMillis).whenComplete((outcome, error) -> {
                        MapRelay.Outcome told = error != null ? MapRelay.notPassedOn(passOn) : outcome;
                        JsonObject answer = new JsonObject().put("failed", new JsonArray(told.failed()))
                                .put("unknown", new JsonArray(told.unknown()));
                        context.runOnContext(v -> request.response().setStatusCode(200)
                                .putHeader("Content-Type", "application/json").end(answer.encode()));
                    });
                }
            });
        });
    }

    /** A change request: started here if this node is its claimant, else forwarded once to the claimant. */
    private void changeRequested(HttpServerRequest request) {
        String operation = QueryParameters.text(request.query(), "op");
        String url = QueryParameters.text(request.query(), "url");
        if (operation == null || url == null || url.isEmpty()) {
            Responses.send(request, 400, "a change needs op and url");
            return;
        }
        ChangeOperation op;
        try {
            op = ChangeOperation.parse(operation);
        } catch (ChangeRefusedException e) {
            Responses.send(request, e.status(), e.getMessage());
            return;
        }
        String force = QueryParameters.text(request.query(), "force");
        requestChange(op, url, "true".equals(force), request.getHeader(Headers.FORWARDED) != null).onComplete(answer -> {
            if (answer.failed()) {
                Responses.failure(request, answer.cause());
            } else {
                request.response().setStatusCode(answer.result().status())
                        .putHeader("Content-Type", answer.result().status() == 202 ? "application/json" : "text/plain; charset=utf-8")
                        .end(answer.result().body());
            }
        });
    }

    /** Starts the change here or at the claimant; the answer is 202 with {@code {"id", "claimant"}} or a refusal. */
    private Future<MembershipClient.Answer> requestChange(ChangeOperation operation, String url, boolean force, boolean forwarded) {
        String claimant = MapChanges.claimantFor(membership.map(), operation, url);
        if (claimant.equals(membership.self()) || forwarded) {
            return Future.fromCompletionStage(changes.start(operation, url, force).handle((change, error) -> {
                if (error == null) {
                    return new MembershipClient.Answer(202, new JsonObject().put("id", change.id())
                            .put("claimant", membership.self()).encode());
                }
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                if (cause instanceof ChangeRefusedException refused) {
                    return new MembershipClient.Answer(refused.status(), refused.getMessage() + "\n");
                }
                return new MembershipClient.Answer(500, "cannot start the change: " + cause + "\n");
            }), vertx.getOrCreateContext());
        }
        return membership.client().forwardChange(claimant, operation.id(), url, force)
                .recover(error -> Future.succeededFuture(new MembershipClient.Answer(503, "the claimant " + claimant
                        + " is unreachable, and no change is made while it is: " + error.getMessage() + "\n")));
    }

    /**
     * {@code GET /v0/admin/changes}: the changes the claimant drove since it started, newest first, asked
     * of the claimant by any node; 503 if the claimant does not answer.
     */
    private void listChanges(HttpServerRequest request) {
        String claimant = membership.map().claimant();
        Future<MembershipClient.Answer> answer = claimant.equals(membership.self())
                ? Future.succeededFuture(new MembershipClient.Answer(200, changeList().encode()))
                : membership.client().changes(claimant).recover(error -> Future.succeededFuture(new MembershipClient.Answer(503,
                        "the claimant " + claimant + " is unreachable: " + error.getMessage() + "\n")));
        answer.onSuccess(done -> {
            if (done.status() == 200) {
                request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("claimant", claimant).put("changes", new JsonArray(done.body())).encode() + "\n");
            } else {
                Responses.send(request, done.status() == 503 ? 503 : 502, done.status() == 503 ? done.body().strip()
                        : "the claimant " + claimant + " answered " + done.status() + ": " + done.body().strip());
            }
        });
    }

    /**
     * {@code DELETE /v0/admin/changes/ID} on any node: asks the claimant to cancel the change; {@code 202}
     * with the change once its rollback is under way (the change list shows it end {@code cancelled}),
     * {@code 404}/{@code 409} from the claimant, {@code 503} if it does not answer.
     */
    private void cancelChange(HttpServerRequest request, String idText) {
        long id;
        try {
            id = Decimal.parse(idText, "change id");
        } catch (IllegalArgumentException e) {
            Responses.send(request, 400, e.getMessage());
            return;
        }
        String claimant = membership.map().claimant();
        Future<MembershipClient.Answer> answer = claimant.equals(membership.self())
                ? Future.succeededFuture(cancel(id))
                : membership.client().cancelChange(claimant, id).recover(error -> Future.succeededFuture(
                        new MembershipClient.Answer(503, "the claimant " + claimant + " is unreachable: " + error.getMessage() + "\n")));
        answer.onSuccess(done -> request.response().setStatusCode(done.status())
                .putHeader("Content-Type", done.status() == 202 ? "application/json" : "text/plain; charset=utf-8")
                .end(done.body()));
    }

    /** {@code DELETE /internal/v0/membership/change?id=N}: the claimant's side of a cancel. */
    private void cancelHere(HttpServerRequest request) {
        MembershipClient.Answer answer = cancel(parseId(request));
        request.response().setStatusCode(answer.status())
                .putHeader("Content-Type", answer.status() == 202 ? "application/json" : "text/plain; charset=utf-8")
                .end(answer.body());
    }

    private MembershipClient.Answer cancel(long id) {
        try {
            return new MembershipClient.Answer(202, toJson(changes.cancel(id)).encode());
        } catch (ChangeRefusedException e) {
            return new MembershipClient.Answer(e.status(), e.getMessage() + "\n");
        }
    }

    /** {@code GET /internal/v0/membership/change}: one change with {@code id}, or, without, every change this node drove. */
    private void changeStatus(HttpServerRequest request) {
        if (QueryParameters.text(request.query(), "id") == null) {
            request.response().setStatusCode(200).putHeader("Content-Type", "application/json").end(changeList().encode());
            return;
        }
        java.util.Optional<MapChange> change = changes.change(parseId(request));
        if (change.isEmpty()) {
            Responses.send(request, 404, "no change " + request.query() + " on this node");
            return;
        }
        request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                .end(toJson(change.get()).encode());
    }

    /** The changes this node drove since it started, newest first. */
    private JsonArray changeList() {
        JsonArray list = new JsonArray();
        for (MapChange change : changes.list()) {
            list.add(toJson(change));
        }
        return list;
    }

    private JsonObject toJson(MapChange change) {
        JsonObject json = new JsonObject().put("id", change.id()).put("operation", change.operation().id())
                .put("node", change.node()).put("status", change.status()).put("step", change.step())
                .put("epoch", membership.map().epoch()).put("resumed", change.resumed()).put("force", change.force())
                .put("startedAt", Instant.ofEpochMilli(change.startedAtMillis()).toString())
                .put("streams", change.streams()).put("streamsDone", change.streamsDone())
                .put("keysScanned", change.keysScanned()).put("keysToScan", change.keysToScan())
                .put("entriesStreamed", change.entriesStreamed()).put("bytesStreamed", change.bytesStreamed());
        if (change.finishedAtMillis() != 0) {
            json.put("finishedAt", Instant.ofEpochMilli(change.finishedAtMillis()).toString());
        }
        if (change.reason() != null) {
            json.put("reason", change.reason());
        }
        return json;
    }

    /**
     * Decommission or removal asked by an operator: answered once the change is over, which takes as long
     * as streaming the node's keys, so interim answers keep the connection from closing as idle meanwhile.
     */
    private void operate(HttpServerRequest request, ChangeOperation operation, String url, boolean force) {
        String async = QueryParameters.text(request.query(), "async");
        if (async != null && !async.equals("true") && !async.equals("false")) {
            Responses.send(request, 400, "async must be true or false, got '" + async + "'");
            return;
        }
        if ("true".equals(async)) {
            // Answered once the change started: 202 with its id and claimant, which GET /v0/admin/changes follows.
            requestChange(operation, url, force, false).onComplete(started -> {
                if (started.failed()) {
                    Responses.failure(request, started.cause());
                } else {
                    request.response().setStatusCode(started.result().status())
                            .putHeader("Content-Type", started.result().status() == 202 ? "application/json" : "text/plain; charset=utf-8")
                            .end(started.result().body());
                }
            });
            return;
        }
        long heartbeat = IdleHeartbeat.start(vertx, request, idleTimeout);
        requestChange(operation, url, force, false).compose(answer -> {
            if (answer.status() != 202) {
                return Future.succeededFuture(answer);
            }
            JsonObject started = new JsonObject(answer.body());
            return awaitChange(started.getString("claimant"), started.getLong("id"), operation, url);
        }).onComplete(done -> {
            vertx.cancelTimer(heartbeat);
            if (done.failed()) {
                Responses.failure(request, done.cause());
                return;
            }
            MembershipClient.Answer answer = done.result();
            request.response().setStatusCode(answer.status())
                    .putHeader("Content-Type", answer.status() == 200 ? "application/json" : "text/plain; charset=utf-8")
                    .end(answer.body());
        });
    }

    /**
     * Polls change {@code id} ({@code operation} of {@code node}) at {@code claimant} until it is over:
     * 200 with its summary and the map when done, 500 with the reason when it failed, 503 if the
     * claimant stops answering. A claimant that restarted meanwhile no longer knows the change (it
     * drives a change it finds in progress on to its end, or it was rolled back): the outcome is then
     * read from this node's map once no change is in progress.
     */
    public Future<MembershipClient.Answer> awaitChange(String claimant, long id, ChangeOperation operation, String node) {
        Promise<MembershipClient.Answer> result = Promise.promise();
        poll(claimant, id, operation, node, System.nanoTime(), result);
        return result.future();
    }

    private void poll(String claimant, long id, ChangeOperation operation, String node, long lastAnswer,
                      Promise<MembershipClient.Answer> result) {
        membership.client().changeStatus(claimant, id).onComplete(status -> {
            long answered = lastAnswer;
            if (status.succeeded() && status.result().status() == 404) {
                answered = System.nanoTime();
                MembershipClient.Answer outcome = outcomeOnTheMap(id, operation, node);
                if (outcome != null) {
                    result.complete(outcome);
                    return;
                }
            } else if (status.succeeded() && status.result().status() != 200) {
                result.complete(new MembershipClient.Answer(503, "the claimant " + claimant + " answered "
                        + status.result().status() + " about change " + id + ": " + status.result().body().trim() + "\n"));
                return;
            } else if (status.succeeded()) {
                answered = System.nanoTime();
                JsonObject change = new JsonObject(status.result().body());
                String state = change.getString("status");
                if ("done".equals(state)) {
                    change.put("map", new JsonObject(ClusterMapCodec.toJson(membership.map())));
                    result.complete(new MembershipClient.Answer(200, change.encode()));
                    return;
                }
                if ("failed".equals(state) || "cancelled".equals(state)) {
                    result.complete(new MembershipClient.Answer("failed".equals(state) ? 500 : 409, "the "
                            + change.getString("operation") + " of " + change.getString("node") + " " + state + ": "
                            + change.getString("reason") + "\n"));
                    return;
                }
            } else if (System.nanoTime() - lastAnswer > TimeUnit.MILLISECONDS.toNanos(CLAIMANT_SILENCE_MILLIS)) {
                result.complete(new MembershipClient.Answer(503, "the claimant " + claimant + " stopped answering about change "
                        + id + ": " + status.cause().getMessage() + "\n"));
                return;
            }
            long since = answered;
            vertx.setTimer(POLL_MILLIS, t -> poll(claimant, id, operation, node, since, result));
        });
    }

    /** The outcome of a change its claimant forgot, as this node's map shows it; null while a change is in progress. */
    private MembershipClient.Answer outcomeOnTheMap(long id, ChangeOperation operation, String node) {
        ClusterMap map = membership.map();
        if (map.inTransition()) {
            return null;
        }
        boolean done = operation == ChangeOperation.JOIN ? map.state(node) == NodeState.NORMAL : !map.contains(node);
        if (!done) {
            return new MembershipClient.Answer(500, "the " + operation.id() + " of " + node + " failed: its claimant restarted"
                    + " and the change was rolled back; map: " + map + "\n");
        }
        JsonObject change = new JsonObject().put("id", id).put("operation", operation.id()).put("node", node).put("status", "done")
                .put("epoch", map.epoch()).put("map", new JsonObject(ClusterMapCodec.toJson(map)));
        return new MembershipClient.Answer(200, change.encode());
    }

    /**
     * {@code POST /v0/admin/cleanup}: answered once done, 200 with what it removed, or 409 with why not;
     * with {@code ?async=true}, 202 with the run's entry as soon as it is queued.
     */
    private void cleanUp(HttpServerRequest request) {
        Boolean async = AdminOperations.async(request);
        if (async == null) {
            return;
        }
        NodeCleanup.Run run = cleanup.request(0);
        if (async) {
            AdminOperations.accepted(request, run.operation());
            return;
        }
        Context context = Vertx.currentContext();
        long heartbeat = IdleHeartbeat.start(vertx, request, idleTimeout);
        Future.fromCompletionStage(run.done(), context).onComplete(done -> {
            vertx.cancelTimer(heartbeat);
            if (done.succeeded()) {
                request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                        .end(done.result().toJson().encode() + "\n");
            } else if (done.cause() instanceof ChangeRefusedException refused) {
                Responses.send(request, refused.status(), refused.getMessage());
            } else {
                Responses.failure(request, done.cause());
            }
        });
    }

    /** The claimant's request once a change completed: the cleanup starts in the background. */
    private void cleanupRequested(HttpServerRequest request) {
        String epoch = QueryParameters.text(request.query(), "epoch");
        long minEpoch;
        try {
            minEpoch = Decimal.parse(epoch, "epoch");
        } catch (IllegalArgumentException e) {
            Responses.send(request, 400, e.getMessage());
            return;
        }
        cleanup.request(minEpoch).done().whenComplete((report, error) -> {
            if (error != null) {
                LOG.warn("node {}: the cleanup asked for at epoch {} did not run: {}", membership.self(), minEpoch,
                        error.getMessage());
            }
        });
        request.response().setStatusCode(202).end();
    }

    private void streamRequested(HttpServerRequest request) {
        BodyReader.read(request, MAX_BODY_BYTES, bodyBudget, body -> {
            KeyMovement movement;
            try {
                movement = KeyMovementCodec.fromJson(new String(body, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return Future.succeededFuture();
            }
            membership.stream(movement);
            request.response().setStatusCode(202).end();
            return Future.succeededFuture();
        });
    }

    private void streamStatus(HttpServerRequest request) {
        String name = QueryParameters.text(request.query(), "id");
        if (name == null || name.length() > MAX_STREAM_NAME || !STREAM_NAME.matcher(name).matches()) {
            Responses.send(request, 400, "id must name a stream: a change's epoch, then -without- and the failed sources'"
                    + " indexes joined by dots if any (7, 7-without-0.3)");
            return;
        }
        CompletableFuture<Long> stream = membership.streamOf(name);
        if (stream == null) {
            Responses.send(request, 404, "no stream " + name + " on this node");
            return;
        }
        JsonObject status = new JsonObject();
        StreamProgress progress = membership.streamProgressOf(name);
        status.put("keysScanned", progress.keysScanned()).put("keysToScan", progress.keysToScan())
                .put("entries", progress.entries()).put("bytes", progress.bytes());
        if (!stream.isDone()) {
            status.put("status", "running");
        } else if (stream.isCompletedExceptionally()) {
            Throwable cause = stream.handle((v, e) -> e).join();
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            status.put("status", "failed").put("reason", String.valueOf(cause.getMessage()));
        } else {
            status.put("status", "done").put("entries", stream.join());
        }
        request.response().setStatusCode(200).putHeader("Content-Type", "application/json").end(status.encode());
    }

    private static long parseId(HttpServerRequest request) {
        String id = QueryParameters.text(request.query(), "id");
        if (id == null) {
            throw new IllegalArgumentException("missing id");
        }
        return Decimal.parse(id, "id");
    }

    /** Runs blocking membership work on its own threads, never on the event loop. */
    private <T> Future<T> blocking(java.util.concurrent.Callable<T> work) {
        Context context = Vertx.currentContext();
        Promise<T> promise = Promise.promise();
        membership.worker().execute(() -> {
            try {
                T value = work.call();
                context.runOnContext(v -> promise.complete(value));
            } catch (Exception e) {
                LOG.debug("membership work failed", e);
                context.runOnContext(v -> promise.fail(e));
            }
        });
        return promise.future();
    }
}
