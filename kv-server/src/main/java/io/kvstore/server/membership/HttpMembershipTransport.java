package io.kvstore.server.membership;

import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.internal.membership.MapRelay;
import io.kvstore.cluster.internal.membership.MembershipTransport;
import io.kvstore.cluster.internal.membership.StreamProgress;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.server.internode.MembershipClient;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.List;
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
    public CompletionStage<MapRelay.Outcome> push(String node, ClusterMap map, List<String> passOn, long passOnMillis) {
        return onWorker(client.push(node, map, passOn, passOnMillis));
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
            StreamProgress.State state = switch (String.valueOf(status.getString("status"))) {
                case "done" -> StreamProgress.State.DONE;
                case "failed" -> StreamProgress.State.FAILED;
                default -> StreamProgress.State.RUNNING;
            };
            // An older node tells only a finished stream's entries.
            return new StreamProgress(state, status.getLong("keysScanned", 0L), status.getLong("keysToScan", 0L),
                    status.getLong("entries", 0L), status.getLong("bytes", 0L), status.getString("reason"));
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
