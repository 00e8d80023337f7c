package io.kvstore.server.metrics;

import io.kvstore.cluster.internal.HintedHandoff;
import io.kvstore.cluster.internal.repair.AntiEntropy;
import io.kvstore.server.internode.BatchCounters;
import io.kvstore.server.internode.MapDivergence;
import io.kvstore.server.internode.RoundBatcher;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Replication as meters: how calls to peers were batched, hinted handoff's counters, the versions read repair handed out, and the keys the
 * anti-entropy exchanges this node started sent and received. Each is read from its component when
 * scraped; nothing is recorded on the request path here.
 */
public final class ReplicationMetrics {
    private ReplicationMetrics() {
    }

    /**
     * @param readRepairs versions read repair wrote, over every map this node served
     * @param hints       null: hinted handoff is off and its counters stay absent
     */
    public static void bind(MeterRegistry registry, LongSupplier readRepairs, MapDivergence divergence, BatchCounters batches,
                            HintedHandoff hints, AntiEntropy antiEntropy) {
        // A function counter holds its object weakly: the registry, which lives as long as the node, rather
        // than the supplier, which nothing else holds and a collection would take.
        FunctionCounter.builder("kv.read.repairs", registry, r -> readRepairs.getAsLong())
                .description("Versions read repair wrote to replicas that answered an older one").register(registry);
        FunctionCounter.builder("kv.cluster.map.diverged", divergence, MapDivergence::count)
                .description("Replica requests refused and map pulls made because a peer holds another map of this node's epoch")
                .register(registry);
        batchCounters(registry, "read", batches.reads());
        batchCounters(registry, "write", batches.writes());
        if (hints != null) {
            hintCounter(registry, hints, "stored", "Writes a replica did not acknowledge, kept here as hints", c -> c.stored);
            hintCounter(registry, hints, "replayed", "Hints delivered to their replica", c -> c.replayed);
            hintCounter(registry, hints, "dropped_past_window", "Hints not kept: the replica was down longer than the hint window",
                    c -> c.droppedPastWindow);
            hintCounter(registry, hints, "dropped_full", "Hints not kept: the replica's hints reached --max-hint-bytes",
                    c -> c.droppedFull);
            hintCounter(registry, hints, "expired", "Hints dropped undelivered after the tombstone grace", c -> c.expired);
            hintCounter(registry, hints, "failed_to_store", "Hints the hint store could not write", c -> c.failedToStore);
            hintCounter(registry, hints, "dropped_node_left", "Hints dropped because their node left the cluster",
                    c -> c.droppedNodeLeft);
            hintCounter(registry, hints, "dropped_not_replica",
                    "Hints dropped because the newest map no longer makes their node a replica of their key",
                    c -> c.droppedNotReplica);
        }
        if (antiEntropy != null) {
            FunctionCounter.builder("kv.repair.keys.sent", antiEntropy, AntiEntropy::keysSent)
                    .description("Keys sent to peers by anti-entropy exchanges this node started").register(registry);
            FunctionCounter.builder("kv.repair.keys.received", antiEntropy, AntiEntropy::keysReceived)
                    .description("Keys received from peers by anti-entropy exchanges this node started").register(registry);
            FunctionCounter.builder("kv.repair.exchanges", antiEntropy, AntiEntropy::exchanges).tag("outcome", "ok")
                    .description("Anti-entropy exchanges with one peer this node started").register(registry);
            FunctionCounter.builder("kv.repair.exchanges", antiEntropy, AntiEntropy::failedExchanges).tag("outcome", "failed")
                    .description("Anti-entropy exchanges with one peer this node started").register(registry);
        }
    }

    private static void batchCounters(MeterRegistry registry, String operation, RoundBatcher.Counters counters) {
        FunctionCounter.builder("kv.replica.batches", counters, RoundBatcher.Counters::batches).tag("operation", operation)
                .description("Requests that carried several calls to one peer replica").register(registry);
        FunctionCounter.builder("kv.replica.batched.calls", counters, RoundBatcher.Counters::batchedCalls).tag("operation", operation)
                .description("Calls to peer replicas sent in those requests").register(registry);
    }

    private static void hintCounter(MeterRegistry registry, HintedHandoff hints, String event, String description,
                                    ToDoubleFunction<HintedHandoff.Counters> value) {
        FunctionCounter.builder("kv.hints", hints, h -> value.applyAsDouble(h.counters()))
                .tag("event", event).description(description).register(registry);
    }
}
