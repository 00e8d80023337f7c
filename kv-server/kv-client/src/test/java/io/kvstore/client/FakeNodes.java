package io.kvstore.client;

import io.kvstore.core.testing.Ports;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * Bare HTTP servers that describe themselves as a ring-partitioned cluster on {@code /v0/status},
 * answer {@code /v0/entity} as {@code answer} says and record which of them each request reached.
 */
final class FakeNodes implements AutoCloseable {
    final Vertx vertx = Vertx.vertx();
    final List<String> urls = new ArrayList<>();
    final List<HttpServer> servers = new ArrayList<>();
    /** "node index: method uri" of every data request, in arrival order. */
    final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
    /** A permit per {@code /v0/status} answered: each is one read of the cluster map by a client. */
    final Semaphore mapReads = new Semaphore(0);

    FakeNodes(int size, int virtualNodes, Consumer<HttpServerRequest> answer) throws Exception {
        for (int i = 0; i < size; i++) {
            urls.add("http://127.0.0.1:" + Ports.free());
        }
        for (int i = 0; i < size; i++) {
            int index = i;
            JsonObject status = new JsonObject().put("node", urls.get(i)).put("cluster", new JsonArray(urls))
                    .put("partitioner", "ring").put("virtualNodes", virtualNodes);
            HttpServer server = vertx.createHttpServer().requestHandler(request -> {
                if (request.path().equals("/v0/status")) {
                    request.response().end(status.encode());
                    mapReads.release();
                } else if (request.path().equals("/v0/entity")) {
                    received.add(index + ": " + request.method() + " " + request.uri());
                    answer.accept(request);
                } else {
                    request.response().setStatusCode(400).end("unknown path");
                }
            });
            servers.add(server.listen(Integer.parseInt(urls.get(i).substring(urls.get(i).lastIndexOf(':') + 1)))
                    .toCompletionStage().toCompletableFuture().get());
        }
    }

    void kill(int i) throws Exception {
        servers.get(i).close().toCompletionStage().toCompletableFuture().get();
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }
}
