package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;

/**
 * One node's answers to {@code GET /v0/status} and {@code GET /v0/cluster}, or why it gave none: a node
 * that cannot be reached, answers an error or answers no JSON is reported, never a failure of the command.
 */
record NodeReport(String url, JsonObject status, JsonObject cluster, String error) {

    /** Asks {@code url} for both, at once; the stage never fails. */
    static CompletableFuture<NodeReport> ask(NodeHttp http, String url) {
        CompletableFuture<Answer> status = http.sendAsync(url, "GET", "/v0/status");
        CompletableFuture<Answer> cluster = http.sendAsync(url, "GET", "/v0/cluster");
        return status.thenCombine(cluster, (s, c) -> new NodeReport(url, s.expect(200).json(), c.expect(200).json(), null))
                .exceptionally(error -> new NodeReport(url, null, null, http.failure(url, error).getMessage()));
    }

    boolean answered() {
        return status != null;
    }

    /** {@code {"url", "status", "cluster", "error"}}, the node's answers as it gave them. */
    JsonObject toJson() {
        return new JsonObject().put("url", url).put("status", status).put("cluster", cluster).put("error", error);
    }
}
