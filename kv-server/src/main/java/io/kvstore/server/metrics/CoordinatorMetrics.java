package io.kvstore.server.metrics;

import io.kvstore.cluster.NotEnoughReplicasException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * How coordinated requests end, by method: {@code ok}, {@code not_enough_replicas} (too many replicas
 * failed), {@code timeout} (the replicas did not answer in time) or {@code error}. Counters are bound
 * once, so recording one is an array index and an add. Also counts the requests retried on a newer
 * map after a replica refused them as sent on an older one.
 */
public final class CoordinatorMetrics {
    /** Records nothing: the node runs without metrics. */
    public static final CoordinatorMetrics NONE = new CoordinatorMetrics(null);

    private static final String[] METHODS = {"GET", "PUT", "DELETE"};
    private static final String[] OUTCOMES = {"ok", "not_enough_replicas", "timeout", "error"};
    private static final int OK = 0;
    private static final int NOT_ENOUGH_REPLICAS = 1;
    private static final int TIMEOUT = 2;
    private static final int ERROR = 3;

    /** [method][outcome], null when recording nothing. */
    private final Counter[][] counters;
    private final Counter staleEpochRetries;

    public CoordinatorMetrics(MeterRegistry registry) {
        if (registry == null) {
            counters = null;
            staleEpochRetries = null;
            return;
        }
        staleEpochRetries = Counter.builder("kv.coordinator.stale.epoch.retries")
                .description("Coordinated requests sent again on a newer cluster map after a replica refused them (421)")
                .register(registry);
        counters = new Counter[METHODS.length][OUTCOMES.length];
        for (int m = 0; m < METHODS.length; m++) {
            for (int o = 0; o < OUTCOMES.length; o++) {
                counters[m][o] = Counter.builder("kv.coordinator.requests")
                        .description("Coordinated requests of /v0/entity by method and outcome")
                        .tag("method", METHODS[m]).tag("outcome", OUTCOMES[o])
                        .register(registry);
            }
        }
    }

    /** A coordinated {@code method} ended, failed with {@code failure} or succeeded if it is null. */
    public void record(HttpMethod method, Throwable failure) {
        if (counters == null) {
            return;
        }
        int m = method == HttpMethod.GET ? 0 : method == HttpMethod.PUT ? 1 : 2;
        counters[m][outcome(failure)].increment();
    }

    /** A coordinated request is sent again on a newer map. */
    public void retriedOnNewerMap() {
        if (staleEpochRetries != null) {
            staleEpochRetries.increment();
        }
    }

    private static int outcome(Throwable failure) {
        if (failure == null) {
            return OK;
        }
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof NotEnoughReplicasException) {
            return cause.getCause() instanceof TimeoutException ? TIMEOUT : NOT_ENOUGH_REPLICAS;
        }
        return ERROR;
    }
}
