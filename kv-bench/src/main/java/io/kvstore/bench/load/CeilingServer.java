package io.kvstore.bench.load;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * The ceiling: a bare Vert.x HTTP server that speaks the shape of the kvstore protocol (201 for PUT,
 * 202 for DELETE, 200 with a fixed value for GET) but stores nothing. Measured in the same run as the
 * store, it tells how much of a figure is HTTP and this machine, and how much is kvstore.
 *
 * <p>{@code java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.load.CeilingServer --help} lists
 * the options. Its transport should be the node's (both default to native), or the ratio measures the
 * transports as well as kvstore.
 */
public final class CeilingServer {
    private final Vertx vertx;
    private final List<HttpServer> servers = new ArrayList<>();
    private final Set<String> loops = new HashSet<>();

    private CeilingServer(Vertx vertx) {
        this.vertx = vertx;
    }

    /**
     * Starts one listener per event loop on {@code port} (0 picks a free port; see {@link #port()}), on
     * Netty's native transport if {@code nativeTransport} and it loads, else on java.nio.
     */
    public static Future<CeilingServer> start(int port, int eventLoops, int valueSize, boolean nativeTransport) {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops).setPreferNativeTransport(nativeTransport));
        CeilingServer ceiling = new CeilingServer(vertx);
        Buffer value = Buffer.buffer(new byte[valueSize]);
        // One verticle instance per event loop, as KvServer: Vert.x gives each its own loop and spreads
        // the port's connections over them (listeners created from one thread would share its context,
        // so one loop), and listeners asking for one negative port share one random port.
        int listenPort = port == 0 ? -1 : port;
        return vertx.deployVerticle(() -> ceiling.new Listener(listenPort, value), new DeploymentOptions().setInstances(eventLoops))
                .map(ceiling);
    }

    /** One listener on one event loop. */
    private final class Listener extends VerticleBase {
        private final int port;
        private final Buffer value;

        Listener(int port, Buffer value) {
            this.port = port;
            this.value = value;
        }

        @Override
        public Future<?> start() {
            HttpServer server = vertx.createHttpServer(new HttpServerOptions().setTcpNoDelay(true).setHttp2ClearTextEnabled(false));
            server.requestHandler(request -> answer(request, value));
            synchronized (servers) {
                servers.add(server);
                loops.add(Thread.currentThread().getName());
            }
            return server.listen(port);
        }
    }

    private static void answer(HttpServerRequest request, Buffer value) {
        request.end().onSuccess(v -> {
            HttpMethod method = request.method();
            if (method == HttpMethod.GET) {
                request.response().setStatusCode(200).end(value);
            } else if (method == HttpMethod.PUT) {
                request.response().setStatusCode(201).end();
            } else if (method == HttpMethod.DELETE) {
                request.response().setStatusCode(202).end();
            } else {
                request.response().setStatusCode(405).end();
            }
        });
    }

    /** The names of the event-loop threads the listeners run on, one per event loop. */
    public Set<String> eventLoopThreads() {
        synchronized (servers) {
            return Set.copyOf(loops);
        }
    }

    /** The port every listener shares. */
    public int port() {
        synchronized (servers) {
            return servers.get(0).actualPort();
        }
    }

    public Future<Void> stop() {
        return vertx.close();
    }

    /** Serves until SIGTERM; {@code --help} lists the options. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Command()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @CommandLine.Command(name = "CeilingServer", showDefaultValues = true, usageHelpWidth = 110,
            customSynopsis = "java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.load.CeilingServer [OPTIONS]",
            description = {"A bare HTTP server with the kvstore protocol's statuses that stores nothing.", ""})
    private static final class Command implements Callable<Integer> {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
        private boolean help;

        @Option(names = "--port", paramLabel = "N", description = "port to listen on")
        private int port = 8090;

        @Option(names = "--event-loops", paramLabel = "N", showDefaultValue = Visibility.NEVER,
                description = "event loops, one listener on each (default: one per core)")
        private int eventLoops = Runtime.getRuntime().availableProcessors();

        @Option(names = "--value-size", paramLabel = "BYTES", description = "body size of every GET answer")
        private int valueSize = 100;

        @Option(names = "--transport", paramLabel = "NAME", description = "native | nio; the node's, so that the"
                + " ratio measures kvstore and not the transports")
        private LoadOptions.Transport transport = LoadOptions.Transport.NATIVE;

        @Override
        public Integer call() throws Exception {
            CeilingServer ceiling = start(port, eventLoops, valueSize, transport == LoadOptions.Transport.NATIVE)
                    .toCompletionStage().toCompletableFuture().get();
            System.out.println("ceiling server on port " + ceiling.port() + " with " + eventLoops + " event loops on "
                    + (ceiling.vertx.isNativeTransportEnabled() ? "the native transport" : "java.nio"));
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                ceiling.stop();
                stopped.countDown();
            }));
            stopped.await();
            return 0;
        }
    }
}
