package io.kvstore.bench.load;

import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.util.concurrent.CountDownLatch;

/**
 * A kvstore node over a {@link DiscardingDao}: the server with the standalone jar's options, its request
 * path, coordinator, replication and metrics, and no storage engine beneath. Run where a node would run
 * (as {@code tail-under-compaction.sh} does with {@code STORE=discard}), it tells how much of a node's
 * latency is the engine's and how much is the rest of the node on this machine, as {@link CeilingServer}
 * tells the same of HTTP and the machine alone.
 *
 * <p>{@code java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.load.DiscardingNode [kv-server options]};
 * every PUT is acknowledged and forgotten, every GET answers 404. Stops on SIGTERM.
 */
public final class DiscardingNode {
    private DiscardingNode() {
    }

    public static void main(String[] args) throws Exception {
        KvServerConfig config;
        try {
            config = KvServerConfig.fromCommandLine(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        KvServer server = KvServer.start(config, new DiscardingDao()).toCompletableFuture().get();
        System.err.println("discarding node " + config.self() + " listening on port " + server.port());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop().toCompletableFuture().join();
            stopped.countDown();
        }, "kv-shutdown"));
        stopped.await();
    }
}
