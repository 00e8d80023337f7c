package io.kvstore.server;

import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.ReplicaCoordinator;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;

/**
 * {@code /v0/entity}: GET 200/404, PUT 201, DELETE 202 once {@code ack} replicas answered, else 504;
 * other methods 405; missing or empty {@code id}, bad {@code ack}/{@code from} or a key over the limit
 * 400. The request goes to the coordinator, which answers on whatever thread; Vert.x writes the
 * response on the connection's event loop.
 */
final class EntityHandler {
    private final ReplicaCoordinator coordinator;
    private final int maxKeyBytes;
    private final int maxBodyBytes;

    EntityHandler(ReplicaCoordinator coordinator, int maxKeyBytes, int maxBodyBytes) {
        this.coordinator = coordinator;
        this.maxKeyBytes = maxKeyBytes;
        this.maxBodyBytes = maxBodyBytes;
    }

    void handle(HttpServerRequest request) {
        HttpMethod method = request.method();
        if (method != HttpMethod.GET && method != HttpMethod.PUT && method != HttpMethod.DELETE) {
            request.response().putHeader("Allow", "GET, PUT, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on /v0/entity");
            return;
        }
        String id = request.getParam("id");
        if (id == null || id.isEmpty()) {
            Responses.send(request, 400, "missing or empty id");
            return;
        }
        byte[] key = id.getBytes(StandardCharsets.UTF_8);
        if (key.length > maxKeyBytes) {
            Responses.send(request, 400, "id of " + key.length + " bytes exceeds the limit of " + maxKeyBytes);
            return;
        }
        Quorum quorum = Quorum.parse(request.getParam("ack"), request.getParam("from"), coordinator.clusterSize());
        if (method == HttpMethod.GET) {
            coordinator.get(key, quorum).whenComplete((entry, error) -> {
                if (error != null) {
                    Responses.failure(request, error);
                } else if (entry == null || entry.isTombstone()) {
                    Responses.send(request, 404, "not found");
                } else {
                    request.response().setStatusCode(200).end(Buffer.buffer(entry.value()));
                }
            });
        } else if (method == HttpMethod.PUT) {
            RequestBodies.read(request, maxBodyBytes, body ->
                    coordinator.put(key, body.getBytes(), quorum).whenComplete((done, error) -> Responses.completed(request, 201, error)));
        } else {
            coordinator.delete(key, quorum).whenComplete((done, error) -> Responses.completed(request, 202, error));
        }
    }

}
