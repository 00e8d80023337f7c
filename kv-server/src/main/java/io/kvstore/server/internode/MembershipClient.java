package io.kvstore.server.internode;

import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.internal.membership.KeyMovementCodec;
import io.kvstore.cluster.internal.membership.MapRelay;
import io.kvstore.cluster.internal.metadata.EpochReply;
import io.kvstore.cluster.internal.metadata.EpochRequest;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.server.wire.EpochVotes;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.PassOnList;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * This node's side of the membership routes of other nodes ({@link io.kvstore.server.membership.MembershipHandler}). Every request
 * carries this node's map epoch, so that a node behind pulls the newer map. Non-blocking.
 */
public final class MembershipClient {
    /** An answer's status and body, for the calls whose refusals the caller passes on. */
    public record Answer(int status, String body) {
    }

    /** A member answered a call with another status than the one that means success. */
    public static final class RefusedException extends IllegalStateException {
        private final int status;
        private final String body;

        RefusedException(String node, int status, String body) {
            super(node + " answered " + status + ": " + body);
            this.status = status;
            this.body = body;
        }

        public int status() {
            return status;
        }

        /** The answer's body, trimmed: the member's reason. */
        public String body() {
            return body;
        }
    }

    private final WebClient client;
    private final String self;
    private final LongSupplier epoch;
    private final long timeoutMillis;
    /**
     * How long a change request waits for its answer: longer than the claimant's commit through the
     * metadata group (10 s at most), so that its refusal, "no majority" included, reaches the asker
     * rather than a timeout; shorter than the 30 s after which a node waiting on a silent claimant
     * gives up, or its successor takes the change over.
     */
    static final long CHANGE_ANSWER_MILLIS = 14_000;

    public MembershipClient(WebClient client, String self, LongSupplier epoch, long timeoutMillis) {
        this.client = client;
        this.self = self;
        this.epoch = epoch;
        this.timeoutMillis = timeoutMillis;
    }

    /** The map {@code node} holds now. */
    public Future<ClusterMap> map(String node) {
        return request(node, io.vertx.core.http.HttpMethod.GET, Routes.MAP).send()
                .map(response -> {
                    expect(response, 200, node);
                    return ClusterMapCodec.fromJson(response.bodyAsString());
                });
    }

    /**
     * Hands {@code map} to {@code node}, which keeps it if it is newer than its own and, given members of
     * the map in {@code passOn} ({@link PassOnList}), hands it on to them within
     * {@code passOnMillis}; answers what became of them. A node that hands nothing on (an older one)
     * answers {@code 204}: every node of {@code passOn} is then unknown.
     */
    public Future<MapRelay.Outcome> push(String node, ClusterMap map, List<String> passOn, long passOnMillis) {
        String path = passOn.isEmpty() ? Routes.MAP
                : Routes.MAP + "?passOn=" + PassOnList.encode(map, passOn) + "&passOnMillis=" + passOnMillis;
        return request(node, io.vertx.core.http.HttpMethod.PUT, path)
                .sendBuffer(Buffer.buffer(ClusterMapCodec.toJson(map)))
                .map(response -> {
                    if (response.statusCode() == 204) {
                        return MapRelay.notPassedOn(passOn);
                    }
                    expect(response, 200, node);
                    JsonObject outcome = response.bodyAsJsonObject();
                    return new MapRelay.Outcome(strings(outcome.getJsonArray("failed")), strings(outcome.getJsonArray("unknown")));
                });
    }

    private static List<String> strings(JsonArray array) {
        List<String> list = new ArrayList<>(array == null ? 0 : array.size());
        if (array != null) {
            for (int i = 0; i < array.size(); i++) {
                list.add(array.getString(i));
            }
        }
        return list;
    }

    /** Asks {@code node}, any member, to have a change made; the answer is passed on as is. */
    public Future<Answer> change(String node, String operation, String url) {
        return changeRequest(node, operation, url, false).send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    /**
     * Passes a change request on to the claimant {@code node}, which must not forward it again; with
     * {@code force}, a removal that may commit its maps without a majority of the metadata group.
     */
    public Future<Answer> forwardChange(String node, String operation, String url, boolean force) {
        return changeRequest(node, operation, url, force).putHeader(Headers.FORWARDED, "1").send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    private HttpRequest<Buffer> changeRequest(String node, String operation, String url, boolean force) {
        String path = Routes.MEMBERSHIP_CHANGE + "?op=" + operation + "&url=" + URLEncoder.encode(url, StandardCharsets.UTF_8)
                + (force ? "&force=true" : "");
        return request(node, io.vertx.core.http.HttpMethod.POST, path).timeout(CHANGE_ANSWER_MILLIS);
    }

    /**
     * The progress of change {@code id} at the claimant {@code node}: 200 with its JSON, 404 when the
     * claimant does not know it (it restarted since).
     */
    public Future<Answer> changeStatus(String node, long id) {
        return request(node, io.vertx.core.http.HttpMethod.GET, Routes.MEMBERSHIP_CHANGE + "?id=" + id).send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    /** Asks the claimant {@code node} to cancel change {@code id}; the answer is passed on as is. */
    public Future<Answer> cancelChange(String node, long id) {
        return request(node, io.vertx.core.http.HttpMethod.DELETE, Routes.MEMBERSHIP_CHANGE + "?id=" + id).send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    /** The changes {@code node} drove as claimant, as a JSON array (answer 200). */
    public Future<Answer> changes(String node) {
        return request(node, io.vertx.core.http.HttpMethod.GET, Routes.MEMBERSHIP_CHANGE).send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    /** Has {@code node} start (or resume, or keep running) its share of {@code movement}. */
    public Future<Void> startStream(String node, KeyMovement movement) {
        return request(node, io.vertx.core.http.HttpMethod.POST, Routes.MEMBERSHIP_STREAM)
                .sendBuffer(Buffer.buffer(KeyMovementCodec.toJson(movement)))
                .map(response -> {
                    expect(response, 202, node);
                    return null;
                });
    }

    /** The progress of {@code node}'s stream of change {@code id}: 404 when it has none (it restarted). */
    public Future<Answer> streamStatus(String node, String name) {
        return request(node, io.vertx.core.http.HttpMethod.GET, Routes.MEMBERSHIP_STREAM + "?id=" + name).send()
                .map(response -> new Answer(response.statusCode(), response.bodyAsString()));
    }

    /** Sends one request of the epoch log to the acceptor {@code node}; its answer, or a failure. */
    public Future<EpochReply> epochVote(String node, EpochRequest request) {
        return request(node, io.vertx.core.http.HttpMethod.POST, Routes.MEMBERSHIP_EPOCH)
                .sendBuffer(Buffer.buffer(EpochVotes.toJson(request)))
                .map(response -> {
                    expect(response, 200, node);
                    return EpochVotes.replyFromJson(response.bodyAsString());
                });
    }

    /** Asks {@code node} to clean up once it holds the map of {@code epoch}, which ended a change. */
    public Future<Void> cleanup(String node, long epoch) {
        return request(node, io.vertx.core.http.HttpMethod.POST, Routes.MEMBERSHIP_CLEANUP + "?epoch=" + epoch)
                .send()
                .map(response -> {
                    expect(response, 202, node);
                    return null;
                });
    }

    /**
     * Tells {@code node} that this node is stopping (it sends it nothing more and hints its writes until
     * this node serves again); gives up after {@code timeoutMillis}.
     */
    public Future<Void> draining(String node, long timeoutMillis) {
        return liveness(node, io.vertx.core.http.HttpMethod.POST, timeoutMillis);
    }

    /**
     * Tells {@code node} that this node serves (again): it takes it back at once rather than at its next
     * probe; gives up after {@code timeoutMillis}.
     */
    public Future<Void> serving(String node, long timeoutMillis) {
        return liveness(node, io.vertx.core.http.HttpMethod.DELETE, timeoutMillis);
    }

    private Future<Void> liveness(String node, io.vertx.core.http.HttpMethod method, long timeoutMillis) {
        return request(node, method, Routes.DRAINING)
                .timeout(timeoutMillis)
                .send()
                .map(response -> {
                    expect(response, 204, node);
                    return null;
                });
    }

    private HttpRequest<Buffer> request(String node, io.vertx.core.http.HttpMethod method, String path) {
        NodeUrl uri = NodeUrl.parse(node);
        return client.request(method, uri.port(), uri.host(), path)
                .timeout(timeoutMillis)
                .putHeader(Headers.EPOCH, Long.toString(epoch.getAsLong()))
                .putHeader(Headers.NODE, self);
    }

    private static void expect(HttpResponse<Buffer> response, int status, String node) {
        if (response.statusCode() != status) {
            String body = response.bodyAsString();
            throw new RefusedException(node, response.statusCode(), body == null ? "" : body.strip());
        }
    }
}
