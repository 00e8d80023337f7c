package io.kvstore.client;

import io.kvstore.core.testing.Ports;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** Real nodes in this JVM on loopback ports, each with its own data directory; any one can be stopped. */
final class Nodes implements AutoCloseable {
    final List<String> urls = new ArrayList<>();
    private final KvServer[] servers;

    Nodes(Path root, int size, UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        servers = new KvServer[size];
        for (int i = 0; i < size; i++) {
            urls.add("http://127.0.0.1:" + Ports.free());
        }
        for (int i = 0; i < size; i++) {
            KvServerConfig.Builder b = KvServerConfig.builder().port(URI.create(urls.get(i)).getPort()).self(urls.get(i))
                    .cluster(urls).dataDirectory(root.resolve("node-" + i))
                    .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofSeconds(2)));
            servers[i] = KvServer.start(tweak.apply(b).build()).toCompletableFuture().get();
        }
    }

    Nodes(Path root, int size) throws Exception {
        this(root, size, b -> b);
    }

    void stop(int i) throws Exception {
        servers[i].stop().toCompletableFuture().get();
        servers[i] = null;
    }

    @Override
    public void close() throws Exception {
        for (int i = 0; i < servers.length; i++) {
            if (servers[i] != null) {
                stop(i);
            }
        }
    }
}
