package io.kvstore.server.membership;

import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.internal.membership.MembershipTransport;
import io.kvstore.cluster.internal.membership.StreamProgress;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.server.internode.MembershipClient;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The membership routes as the change driver's transport. Every answer is handed to the membership
 * worker, so that the driver's next step never runs on an event loop. This node's own cleanup is asked
 * of it directly.
 */
final class HttpMembershipTransport implements MembershipTransport {
    private final String self;
    private final MembershipClient client;
    private final NodeCleanup cleanup;
    private final Executor worker;

    HttpMembershipTransport(String self, MembershipClient client, NodeCleanup cleanup, Executor worker) {
        this.self = self;
        this.client = client;
        this.cleanup = cleanup;
        this.worker = worker;
    }

    @Override
    public CompletionStage<Void> push(String node, ClusterMap map) {
        return onWorker(client.push(node, map));
    }

    @Override
    public CompletionStage<Boolean> answers(String node) {
        return onWorker(client.map(node).map(true));
    }

    @Override
    public CompletionStage<Void> startStream(String node, KeyMovement movement) {
        return onWorker(client.startStream(node, movement));
    }

    @Override
    public CompletionStage<StreamProgress> streamProgress(String node, KeyMovement movement) {
        return onWorker(client.streamStatus(node, movement.streamName()).map(answer -> {
            if (answer.status() == 404) {
                return StreamProgress.UNKNOWN;
            }
            if (answer.status() != 200) {
                throw new IllegalStateException(node + " answered " + answer.status() + " about its stream: " + answer.body().strip());
            }
            JsonObject status = new JsonObject(answer.body());
            return switch (String.valueOf(status.getString("status"))) {
                case "done" -> StreamProgress.done(status.getLong("entries", 0L));
                case "failed" -> StreamProgress.failed(status.getString("reason"));
                default -> StreamProgress.RUNNING;
            };
        }));
    }

    @Override
    public CompletionStage<Void> cleanup(String node, long epoch) {
        if (node.equals(self)) {
            return cleanup.request(epoch).done().thenApply(report -> null);
        }
        return onWorker(client.cleanup(node, epoch));
    }

    private <T> CompletionStage<T> onWorker(Future<T> answer) {
        CompletableFuture<T> result = new CompletableFuture<>();
        answer.onComplete(done -> {
            try {
                worker.execute(() -> {
                    if (done.succeeded()) {
                        result.complete(done.result());
                    } else {
                        result.completeExceptionally(done.cause() instanceof IOException ? done.cause()
                                : new IOException(done.cause().getMessage(), done.cause()));
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                result.completeExceptionally(new IOException("the node is closing", closing));
            }
        });
        return result;
    }
}
