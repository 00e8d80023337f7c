package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a program that depends only on kv-client can load: the client, Vert.x and the placement code,
 * and none of the storage engine, the server, the compression or native libraries and the metrics
 * registry. The enforcer rule in kv-client's pom checks the artifacts; this checks the classes, so that
 * one bundled inside an allowed jar fails too. The test class path adds JUnit, SLF4J's simple binding
 * and kv-core's test-jar without its dependencies, none of which brings these classes.
 */
class ClassPathTest {

    @Test
    void theClientRoutesWithPlacementOverVertx() {
        assertEquals(List.of(), missing(List.of(
                "io.kvstore.cluster.Partitioners",
                "io.kvstore.cluster.KeyHash",
                "io.kvstore.cluster.membership.ClusterMapCodec",
                "io.kvstore.cluster.membership.NodeUrl",
                "io.kvstore.core.hash.XxHash64",
                "io.vertx.core.Vertx")));
    }

    @Test
    void nothingElseIsThere() {
        List<String> forbidden = List.of(
                "io.kvstore.core.Dao",
                "io.kvstore.core.internal.lsm.LsmDao",
                "io.kvstore.cluster.ReplicaCoordinator",
                "io.kvstore.server.KvServer",
                "net.jpountz.lz4.LZ4Factory",
                "com.github.luben.zstd.Zstd",
                "org.rocksdb.RocksDB",
                "com.sun.jna.Native",
                "io.micrometer.core.instrument.MeterRegistry",
                "io.micrometer.prometheusmetrics.PrometheusMeterRegistry",
                "io.vertx.micrometer.MicrometerMetricsFactory",
                "io.netty.channel.epoll.Epoll",
                "io.netty.internal.tcnative.SSL",
                "picocli.CommandLine");
        List<String> loadable = new ArrayList<>(forbidden);
        loadable.removeAll(missing(forbidden));
        assertEquals(List.of(), loadable, "classes a client-only program must not carry");
    }

    private static List<String> missing(List<String> classes) {
        List<String> missing = new ArrayList<>();
        for (String name : classes) {
            try {
                Class.forName(name, false, ClassPathTest.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                missing.add(name);
            }
        }
        return missing;
    }
}
