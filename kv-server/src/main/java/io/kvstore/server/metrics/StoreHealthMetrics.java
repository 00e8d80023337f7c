package io.kvstore.server.metrics;

import io.kvstore.core.Dao;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the store knows of damage to its files ({@link Dao#health()}), as meters read at each scrape
 * from memory: the tables quarantined, whether the store stopped serving, and the bytes its scrubs
 * have checked.
 */
public final class StoreHealthMetrics {
    private StoreHealthMetrics() {
    }

    /** Registers the meters of {@code dao}'s health in {@code registry}. */
    public static void bind(Dao dao, MeterRegistry registry) {
        Gauge.builder("kv.storage.tables.quarantined", dao, d -> d.health().quarantined().size())
                .description("Tables quarantined as damaged: their key intervals are refused until healed")
                .strongReference(true).register(registry);
        Gauge.builder("kv.storage.stopped", dao, d -> d.health().stopped() ? 1 : 0)
                .description("1 once the store stopped serving after a disk error (--disk-failure-policy stop)")
                .strongReference(true).register(registry);
        FunctionCounter.builder("kv.storage.scrubbed", dao, d -> d.health().scrubbedBytes())
                .description("Bytes of tables the scrubs read and checked").baseUnit("bytes")
                .register(registry);
    }
}
