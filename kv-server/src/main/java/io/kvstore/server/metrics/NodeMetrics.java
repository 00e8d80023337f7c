package io.kvstore.server.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.time.Duration;
import java.util.EnumSet;

/**
 * The node's meters, in one Prometheus registry that Vert.x reports to as well: its worker pools and
 * the JVM. The node's own meters ({@link RequestMetrics}, {@link CoordinatorMetrics},
 * {@link MeteredReplica}, {@link StorageMetrics} and the gauges {@link io.kvstore.server.KvServer} binds) are registered here,
 * and a component that comes later binds its meters to {@link #registry()} the same way. Served by
 * {@link MetricsHandler}; the list of names is in docs/OPERATIONS.md.
 */
public final class NodeMetrics {
    /**
     * Latency histograms cover 50 us to 10 s: Micrometer's percentile buckets in that range, a few dozen
     * per series, enough for p99 at any load this node sees and cheap to record.
     */
    private static final Duration FASTEST = Duration.ofNanos(50_000);
    private static final Duration SLOWEST = Duration.ofSeconds(10);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public NodeMetrics() {
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() != Meter.Type.TIMER) {
                    return config;
                }
                return DistributionStatisticConfig.builder()
                        .percentilesHistogram(true)
                        .minimumExpectedValue((double) FASTEST.toNanos())
                        .maximumExpectedValue((double) SLOWEST.toNanos())
                        .build()
                        .merge(config);
            }
        });
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    String scrape() {
        return registry.scrape();
    }

    /**
     * A Vert.x that reports its worker pools and the JVM (heap, GC, threads) to this registry. Its HTTP
     * server and client metrics are off: they look meters up for every request, a cost docs/BENCHMARKS.md
     * measures; {@link RequestMetrics} counts the requests served and {@link MeteredReplica} times the
     * calls to peers instead.
     */
    public Vertx vertx(VertxOptions options) {
        MicrometerMetricsOptions metrics = new MicrometerMetricsOptions()
                .setEnabled(true)
                .setJvmMetricsEnabled(true)
                .setLabels(EnumSet.of(Label.POOL_TYPE, Label.POOL_NAME))
                .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
                .addDisabledMetricsCategory(MetricsDomain.HTTP_CLIENT)
                .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
                .addDisabledMetricsCategory(MetricsDomain.DATAGRAM_SOCKET)
                .addDisabledMetricsCategory(MetricsDomain.VERTICLES);
        return Vertx.builder()
                .with(options.setMetricsOptions(metrics))
                .withMetrics(new MicrometerMetricsFactory(registry))
                .build();
    }
}
