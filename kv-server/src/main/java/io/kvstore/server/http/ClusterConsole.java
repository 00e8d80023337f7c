package io.kvstore.server.http;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.server.internode.MembershipClient;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * {@code GET /v0/console}: the cluster as the web console shows it, gathered by the node serving the
 * page, so that the browser talks to one node with one token and never to the peers (no cross-origin
 * calls, no peer addresses that must be reachable from the operator's desk). It asks every member of
 * its map for {@code /v0/status} and {@code /metrics} with the node's internode client (signed with the
 * cluster secret when there is one, over TLS when the node speaks it), and the claimant for its changes.
 * Each call has a deadline: a member that does not answer in time is shown unreachable, so one dead or
 * stalled node never holds up the page.
 */
public final class ClusterConsole {
    /** How long the page waits for a member at most. */
    public static final long PEER_TIMEOUT_MILLIS = 2_000;
    /** Keys sampled to estimate each node's share: the partitioners place keys by hash, so a fixed sample is even. */
    private static final int SHARE_SAMPLES = 16_384;
    /** The most recent changes shown. */
    private static final int CHANGES_SHOWN = 10;

    private final Vertx vertx;
    private final WebClient client;
    private final MembershipClient membership;
    private final Supplier<ClusterMap> map;
    private final String self;
    /** Without a cluster secret, a client token the page sent is passed on to the members, which then need it too. */
    private final boolean passCredentials;
    private final long timeoutMillis;
    private final RequestRates rates = new RequestRates();
    private volatile KeyShares shares;

    private record KeyShares(long epoch, Map<String, Double> byNode) {
    }

    public ClusterConsole(Vertx vertx, WebClient client, MembershipClient membership, Supplier<ClusterMap> map, String self,
            boolean passCredentials, long timeoutMillis) {
        this.vertx = vertx;
        this.client = client;
        this.membership = membership;
        this.map = map;
        this.self = self;
        this.passCredentials = passCredentials;
        this.timeoutMillis = timeoutMillis;
    }

    void handle(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET) {
            request.response().putHeader("Allow", "GET");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + Routes.CONSOLE);
            return;
        }
        if (request.query() != null) {
            Responses.send(request, 400, Routes.CONSOLE + " takes no parameters");
            return;
        }
        ClusterMap current = map.get();
        String authorization = passCredentials ? request.getHeader(HttpHeaders.AUTHORIZATION) : null;
        List<Member> members = current.members();
        List<Future<JsonObject>> nodes = new ArrayList<>(members.size());
        for (Member member : members) {
            nodes.add(node(member, authorization));
        }
        rates.retain(new HashSet<>(current.urls()));
        Future<JsonObject> changes = changes(current.claimant());
        List<Future<JsonObject>> all = new ArrayList<>(nodes);
        all.add(changes);
        Future.join(all).onComplete(done -> {
            if (request.response().closed()) {
                return;
            }
            Map<String, Double> share = shares(current);
            JsonArray list = new JsonArray();
            JsonObject selfStatus = null;
            for (Future<JsonObject> node : nodes) {
                if (self.equals(node.result().getString("url"))) {
                    selfStatus = node.result().getJsonObject("status");
                }
            }
            for (Future<JsonObject> node : nodes) {
                JsonObject json = node.result();
                String url = json.getString("url");
                json.put("keyShare", share.getOrDefault(url, 0.0)).put("liveness", liveness(url, selfStatus));
                list.add(json);
            }
            JsonObject view = new JsonObject()
                    .put("node", self)
                    .put("generatedMillis", System.currentTimeMillis())
                    .put("epoch", current.epoch())
                    .put("replicationFactor", current.replicationFactor())
                    .put("partitioner", current.partitioner())
                    .put("claimant", current.claimant())
                    .put("changeInProgress", current.inTransition())
                    .put("nodes", list)
                    .put("changes", changes.result());
            request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                    .putHeader("Cache-Control", "no-store").end(view.encode());
        });
    }

    /** A member's state in its map, its status and request rates, or why they could not be had. */
    private Future<JsonObject> node(Member member, String authorization) {
        String url = member.url();
        long asked = System.currentTimeMillis();
        Future<JsonObject> status = deadline(get(url, Routes.STATUS, authorization).map(body -> new JsonObject(body)));
        Future<String> metrics = deadline(get(url, Routes.METRICS, authorization));
        return Future.join(status, metrics).transform(done -> {
            JsonObject json = new JsonObject().put("url", url).put("state", member.state().id())
                    .put("self", self.equals(url));
            if (status.succeeded()) {
                json.put("reachable", true).put("answerMillis", System.currentTimeMillis() - asked)
                        .put("status", status.result());
            } else {
                json.put("reachable", false).put("error", String.valueOf(status.cause().getMessage()));
            }
            if (metrics.succeeded()) {
                json.put("requests", rates.observe(url, metrics.result(), System.currentTimeMillis()));
            } else if (status.succeeded()) {
                json.put("metricsError", String.valueOf(metrics.cause().getMessage()));
            }
            return Future.succeededFuture(json);
        });
    }

    /** The body of a 200 answer to {@code GET path} on {@code node}. */
    private Future<String> get(String node, String path, String authorization) {
        NodeUrl uri = NodeUrl.parse(node);
        HttpRequest<Buffer> request = client.request(HttpMethod.GET, uri.port(), uri.host(), path)
                .connectTimeout(timeoutMillis).idleTimeout(timeoutMillis);
        if (authorization != null) {
            request.putHeader(HttpHeaders.AUTHORIZATION.toString(), authorization);
        }
        return request.send().compose((HttpResponse<Buffer> response) -> {
            String body = response.bodyAsString();
            if (response.statusCode() != 200) {
                return Future.failedFuture(path + " answered " + response.statusCode() + ": "
                        + (body == null ? "" : body.strip()));
            }
            return Future.succeededFuture(body == null ? "" : body);
        });
    }

    /** The changes the claimant drove, newest first, or why it did not say. */
    private Future<JsonObject> changes(String claimant) {
        JsonObject json = new JsonObject().put("claimant", claimant);
        return deadline(membership.changes(claimant)).transform(done -> {
            if (done.failed()) {
                return Future.succeededFuture(json.put("reachable", false).put("error", String.valueOf(done.cause().getMessage())));
            }
            if (done.result().status() != 200) {
                return Future.succeededFuture(json.put("reachable", true).put("error", "answered " + done.result().status()));
            }
            JsonArray all = new JsonArray(done.result().body());
            JsonArray recent = new JsonArray();
            for (int i = 0; i < Math.min(CHANGES_SHOWN, all.size()); i++) {
                recent.add(all.getValue(i));
            }
            return Future.succeededFuture(json.put("reachable", true).put("list", recent).put("total", all.size()));
        });
    }

    /** {@code call}, or a failure once {@link #timeoutMillis} passed without its answer. */
    private <T> Future<T> deadline(Future<T> call) {
        Promise<T> answer = Promise.promise();
        long timer = vertx.setTimer(timeoutMillis, t -> answer.tryFail("no answer within " + timeoutMillis + " ms"));
        call.onComplete(done -> {
            vertx.cancelTimer(timer);
            if (done.succeeded()) {
                answer.tryComplete(done.result());
            } else {
                answer.tryFail(done.cause());
            }
        });
        return answer.future();
    }

    /** Whether this node's failure detector holds {@code url} up: what its replicas act on. */
    private String liveness(String url, JsonObject selfStatus) {
        if (url.equals(self)) {
            return "up";
        }
        JsonArray peers = selfStatus == null ? null : selfStatus.getJsonArray("peers");
        if (peers != null) {
            for (Object peer : peers) {
                if (peer instanceof JsonObject json && url.equals(json.getString("url"))) {
                    return json.getString("state");
                }
            }
        }
        return null;
    }

    /** Each node's share of the keys it serves first (as the primary read owner), estimated from a fixed sample. */
    private Map<String, Double> shares(ClusterMap current) {
        KeyShares known = shares;
        if (known != null && known.epoch == current.epoch()) {
            return known.byNode;
        }
        Partitioner placement = current.readPlacement();
        int[] counts = new int[placement.nodes().size()];
        Random random = new Random(SHARE_SAMPLES);
        byte[] key = new byte[8];
        for (int i = 0; i < SHARE_SAMPLES; i++) {
            ByteBuffer.wrap(key).putLong(random.nextLong());
            counts[placement.primary(key)]++;
        }
        Map<String, Double> byNode = new LinkedHashMap<>();
        for (int i = 0; i < counts.length; i++) {
            byNode.put(placement.nodes().get(i), counts[i] / (double) SHARE_SAMPLES);
        }
        shares = new KeyShares(current.epoch(), byNode);
        return byNode;
    }
}
