package io.kvstore.server.metrics;

import io.kvstore.cluster.Replica;
import io.kvstore.core.Entry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A peer's {@link Replica} that times each call: {@code kv_replica_request_seconds} by peer, operation
 * ({@code read}, {@code write}) and outcome ({@code ok}, {@code failed}), from the call to its answer.
 */
public final class MeteredReplica implements Replica {
    private final Replica peer;
    private final Timer readOk;
    private final Timer readFailed;
    private final Timer writeOk;
    private final Timer writeFailed;

    public MeteredReplica(Replica peer, String node, MeterRegistry registry) {
        this.peer = peer;
        this.readOk = timer(registry, node, "read", "ok");
        this.readFailed = timer(registry, node, "read", "failed");
        this.writeOk = timer(registry, node, "write", "ok");
        this.writeFailed = timer(registry, node, "write", "failed");
    }

    private static Timer timer(MeterRegistry registry, String node, String operation, String outcome) {
        return Timer.builder("kv.replica.request")
                .description("Calls from this node's coordinator to a peer replica, until the answer")
                .tag("peer", node).tag("operation", operation).tag("outcome", outcome)
                .register(registry);
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        long start = System.nanoTime();
        return peer.get(key).whenComplete((entry, error) ->
                (error == null ? readOk : readFailed).record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        long start = System.nanoTime();
        return peer.upsert(entry).whenComplete((done, error) ->
                (error == null ? writeOk : writeFailed).record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
    }

    /** Probes are not requests: passed through untimed. */
    @Override
    public CompletionStage<Void> ping() {
        return peer.ping();
    }

    @Override
    public String toString() {
        return "Metered" + peer;
    }
}
