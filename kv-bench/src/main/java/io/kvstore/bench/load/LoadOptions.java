package io.kvstore.bench.load;

import io.kvstore.client.CallOptions;
import io.kvstore.client.KvClient;
import io.kvstore.client.TlsEngine;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The command line of {@link LoadGenerator}: its options, checked by {@link #parse}, and the run they
 * describe ({@link #call()}).
 */
@Command(name = "LoadGenerator", showDefaultValues = true, usageHelpWidth = 110,
        customSynopsis = "java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.load.LoadGenerator [OPTIONS]",
        description = {"Sends kvstore protocol requests to one or more nodes: closed loop at the maximum rate, open loop"
                + " at --rate, or a --preload of N keys; prints latency percentiles and a RESULT line.", ""})
final class LoadOptions implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    private boolean help;

    @Option(names = "--targets", paramLabel = "URL[,URL...]", description = "nodes to read the cluster map from"
            + " (--routing replica) or to spread requests over (--routing targets)")
    String targetsSpec = "http://localhost:8080";
    List<URI> targets;

    @Option(names = "--routing", paramLabel = "R", description = "replica: each request to a live replica of its"
            + " key, as KvClient places it; targets: round-robin over --targets (any node coordinates), also for"
            + " servers without /v0/status such as the CeilingServer")
    String routingSpec = "replica";
    KvClient.Routing routing;

    @Option(names = "--ops", paramLabel = "SPEC", description = "put | get | delete | range | weights such as put=1,get=3;"
            + " a range reads --range-keys keys from a random one, from one of --targets in turn (the keys that node holds itself)")
    String opsSpec = "get";
    OperationMix ops;

    @Option(names = "--keys", paramLabel = "N", description = "size of the key space")
    long keys = 1_000_000;

    @Option(names = "--distribution", paramLabel = "D", description = "uniform | zipfian")
    String distribution = "uniform";

    @Option(names = "--range-keys", paramLabel = "N", description = "keys a range request reads: [key, key + N)")
    long rangeKeys = 100;

    @Option(names = "--value-size", paramLabel = "BYTES", description = "body size of PUT requests")
    int valueSize = 100;

    @Option(names = "--ack", paramLabel = "A", description = "ack added to each request (default: the server's)")
    Integer ack;

    @Option(names = "--from", paramLabel = "F", description = "from added to each request (default: the server's)")
    Integer from;

    @Option(names = "--connections", paramLabel = "N", description = "keep-alive connections in total")
    int connections = 64;

    @Option(names = "--threads", paramLabel = "N", description = "event-loop threads of the generator")
    int threads = 1;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "measured time")
    int durationSeconds = 30;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "time before measuring, results discarded")
    int warmupSeconds = 5;

    @Option(names = "--rate", paramLabel = "RPS", showDefaultValue = Visibility.NEVER, description = "open loop at this total rate; latency counted from when"
            + " each request was due (coordinated-omission corrected); absent: closed loop at the maximum rate")
    double rate;

    @Option(names = "--preload", paramLabel = "N", showDefaultValue = Visibility.NEVER, description = "instead of a timed run: PUT keys 0..N-1 once each, as"
            + " fast as possible (key names are as wide as N's, so later runs name the same keys with --keys N)")
    long preload;

    @Option(names = "--hgrm", paramLabel = "FILE", description = "also write the latency percentile distribution"
            + " (HdrHistogram .hgrm)")
    Path hgrm;

    @Option(names = "--interval-log", paramLabel = "FILE", description = "also write the percentiles of each"
            + " --interval of the measured time, one line per window (timed runs only)")
    Path intervalLog;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "window of --interval-log")
    int intervalSeconds = 10;

    @Option(names = "--seed", paramLabel = "S", showDefaultValue = Visibility.NEVER,
            description = "random seed (default: time based, printed)")
    long seed = System.nanoTime();

    @Option(names = "--timeout", paramLabel = "MILLIS", description = "per-request timeout")
    int timeoutMillis = 10_000;

    @Option(names = "--transport", paramLabel = "NAME", description = "native | nio: the generator's own event loops"
            + " (default: native in open loop, where java.nio's selector would spin before each timer; nio in closed loop)")
    Transport transport;

    @Option(names = "--tls", description = "speak TLS to the targets: http:// in --targets is read as https://")
    boolean tls;

    @Option(names = "--tls-ca", paramLabel = "FILE", description = "PEM CA the nodes' certificates are checked against"
            + " (default: the JDK's trusted CAs)")
    java.nio.file.Path tlsCa;

    @Option(names = "--tls-engine", paramLabel = "jdk|openssl", description = "TLS implementation of the generator's"
            + " connections (openssl: the JDK's engine, with a warning, where its native library does not load)")
    TlsEngine tlsEngine = TlsEngine.OPENSSL;

    /** Options of the generator's HTTP clients: keep-alive, no delay, and TLS as asked. */
    io.vertx.core.http.HttpClientOptions httpClientOptions() {
        io.vertx.core.http.HttpClientOptions options = new io.vertx.core.http.HttpClientOptions()
                .setKeepAlive(true).setTcpNoDelay(true);
        if (tls) {
            options.setSsl(true).setSslEngineOptions(tlsEngine.vertxOptions());
            if (tlsCa != null) {
                options.setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(tlsCa.toString()));
            }
        }
        return options;
    }

    /** The event loops' transport, by its command-line name. */
    enum Transport {
        NATIVE, NIO
    }

    /**
     * The options {@code args} describe, checked, or {@code null} if they ask for help.
     *
     * @throws ParameterException naming the option at fault
     */
    static LoadOptions parse(String... args) {
        LoadOptions options = new LoadOptions();
        CommandLine commandLine = commandLine(options);
        commandLine.parseArgs(args);
        if (commandLine.isUsageHelpRequested()) {
            return null;
        }
        options.check();
        return options;
    }

    /** The command line that parses into {@code options} and runs them. */
    static CommandLine commandLine(LoadOptions options) {
        ITypeConverter<Long> longs = grouped(Long::parseLong);
        ITypeConverter<Integer> ints = grouped(Integer::parseInt);
        return new CommandLine(options)
                .registerConverter(Long.class, longs)
                .registerConverter(long.class, longs)
                .registerConverter(Integer.class, ints)
                .registerConverter(int.class, ints)
                .registerConverter(TlsEngine.class, value -> {
                    try {
                        return TlsEngine.fromName(value);
                    } catch (IllegalArgumentException e) {
                        throw new TypeConversionException(e.getMessage());
                    }
                })
                .setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Integers whose digits may be grouped as in Java source: {@code --keys 5_000_000}. */
    private static <T> ITypeConverter<T> grouped(Function<String, T> parse) {
        return value -> {
            try {
                return parse.apply(value.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not an integer");
            }
        };
    }

    @Override
    public Integer call() throws Exception {
        check();
        return LoadGenerator.run(this, System.out, System.err);
    }

    private void check() {
        if (tls) {
            targetsSpec = targetsSpec.replace("http://", "https://");
        }
        targets = parseTargets(targetsSpec);
        tls |= "https".equals(targets.get(0).getScheme());
        require(tlsCa == null || tls, "--tls-ca needs --tls or https:// targets");
        ops = describe("--ops", () -> OperationMix.parse(opsSpec));
        routing = describe("--routing", () -> routing(routingSpec));
        describe("--ack/--from", this::callOptions);
        describe("--distribution", () -> KeyChooser.of(distribution, Math.max(keys, 2)));
        require(keys >= 1, "--keys must be >= 1, got " + keys);
        require(rangeKeys >= 1, "--range-keys must be >= 1, got " + rangeKeys);
        require(valueSize >= 0, "--value-size must be >= 0, got " + valueSize);
        require(ack == null || ack >= 1, "--ack must be >= 1, got " + ack);
        require(from == null || from >= 1, "--from must be >= 1, got " + from);
        require(connections >= 1, "--connections must be >= 1, got " + connections);
        require(threads >= 1, "--threads must be >= 1, got " + threads);
        require(durationSeconds >= 1, "--duration must be >= 1, got " + durationSeconds);
        require(warmupSeconds >= 0, "--warmup must be >= 0, got " + warmupSeconds);
        require(rate >= 0 && !Double.isInfinite(rate), "--rate must be > 0, got " + rate);
        require(preload >= 0, "--preload must be >= 1, got " + preload);
        require(intervalSeconds >= 1, "--interval must be >= 1, got " + intervalSeconds);
        require(intervalLog == null || preload == 0, "--interval-log needs a timed run, not --preload");
        require(timeoutMillis >= 1, "--timeout must be >= 1, got " + timeoutMillis);
        require(connections >= threads * targets.size(), "--connections (" + connections
                + ") must be at least threads x targets (" + threads * targets.size() + ")");
    }

    boolean openLoop() {
        return rate > 0;
    }

    /**
     * Digits of the fixed-width key names ({@code key0000042}): those of the largest index, {@code --preload}'s
     * in a preload and {@code --keys}' otherwise, so that a preload of N keys and a run over {@code --keys N}
     * name the same keys.
     */
    int keyDigits() {
        return Long.toString((preload > 0 ? preload : keys) - 1).length();
    }

    /**
     * Whether the generator's event loops prefer Netty's native transport. By default they do in open
     * loop only: java.nio's selector waits in whole milliseconds, so with one of the lanes' timers
     * always less than half a millisecond away it polls without sleeping and takes a core from the
     * server it measures; epoll waits to the microsecond. Closed loop sets no timers and keeps java.nio,
     * the instrument of every closed-loop figure in docs/BENCHMARKS.md.
     */
    boolean nativeTransport() {
        return transport != null ? transport == Transport.NATIVE : openLoop();
    }

    /** The client's options of each request: {@code ack} and {@code from} where given. */
    CallOptions callOptions() {
        CallOptions call = CallOptions.DEFAULT;
        if (ack != null) {
            call = call.ack(ack);
        }
        return from == null ? call : call.from(from);
    }

    private static KvClient.Routing routing(String name) {
        switch (name) {
            case "replica":
                return KvClient.Routing.REPLICA;
            case "targets":
                return KvClient.Routing.ROUND_ROBIN;
            default:
                throw new IllegalArgumentException("unknown routing '" + name + "' (expected replica or targets)");
        }
    }

    /** The query string appended to each request: {@code &ack=A&from=F} where given. */
    String replicationQuery() {
        return (ack == null ? "" : "&ack=" + ack) + (from == null ? "" : "&from=" + from);
    }

    private List<URI> parseTargets(String value) {
        List<URI> uris = new ArrayList<>();
        for (String t : value.split(",")) {
            URI uri = describe("--targets", () -> URI.create(t.trim()));
            require(("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getPort() >= 0, "--targets must look like http://host:port or https://host:port, got '" + t + "'");
            uris.add(uri);
        }
        return List.copyOf(uris);
    }

    /** What {@code parse} returns, or its IllegalArgumentException as a usage error about {@code option}. */
    private <T> T describe(String option, Callable<T> parse) {
        try {
            return parse.call();
        } catch (Exception e) {
            throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage(), e);
        }
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
