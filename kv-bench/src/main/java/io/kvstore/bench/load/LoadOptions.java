package io.kvstore.bench.load;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Command-line options of {@link LoadGenerator}, validated when parsed. */
final class LoadOptions {
    static final String USAGE = String.join("\n",
            "Usage: java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.load.LoadGenerator [options]",
            "",
            "  --targets URL[,URL...]   nodes to send requests to, spread round-robin (default http://localhost:8080)",
            "  --ops SPEC               put | get | delete | weights such as put=1,get=3 (default get)",
            "  --keys N                 size of the key space (default 1000000)",
            "  --distribution D         uniform | zipfian (default uniform)",
            "  --value-size BYTES       body size of PUT requests (default 100)",
            "  --ack A --from F         replication parameters added to each request (default: none, server defaults)",
            "  --connections N          keep-alive connections in total (default 64)",
            "  --threads N              event-loop threads of the generator (default 1)",
            "  --duration SECONDS       measured time (default 30)",
            "  --warmup SECONDS         time before measuring, results discarded (default 5)",
            "  --rate RPS               open loop at this total rate; latency counted from when each request",
            "                           was due (coordinated-omission corrected). Absent: closed loop, maximum rate",
            "  --preload N              instead of a timed run: PUT keys 0..N-1 once each, as fast as possible",
            "                           (key names are as wide as N's: later runs name the same keys with --keys N)",
            "  --hgrm FILE              also write the latency percentile distribution (HdrHistogram .hgrm)",
            "  --seed S                 random seed (default: time based, printed)",
            "  --timeout MILLIS         per-request timeout (default 10000)",
            "  --transport NAME         nio | native: the generator's own event loops (default: native in open loop,",
            "                           where java.nio's selector would spin through the last half millisecond",
            "                           before each lane's timer; nio otherwise, the closed-loop instrument of",
            "                           every figure in docs/BENCHMARKS.md)",
            "  --help                   this text");

    List<URI> targets = List.of(URI.create("http://localhost:8080"));
    OperationMix ops = OperationMix.parse("get");
    String opsSpec = "get";
    long keys = 1_000_000;
    String distribution = "uniform";
    int valueSize = 100;
    Integer ack;
    Integer from;
    int connections = 64;
    int threads = 1;
    int durationSeconds = 30;
    int warmupSeconds = 5;
    double rate;
    long preload;
    Path hgrm;
    long seed = System.nanoTime();
    int timeoutMillis = 10_000;
    /** Null: the default of {@link #nativeTransport()}. */
    Boolean transport;
    boolean help;

    static LoadOptions parse(String... args) {
        LoadOptions o = new LoadOptions();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                o.help = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + flag);
            }
            String value = args[++i];
            switch (flag) {
                case "--targets": o.targets = parseTargets(value); break;
                case "--ops": o.ops = OperationMix.parse(value); o.opsSpec = value; break;
                case "--keys": o.keys = positiveLong(flag, value); break;
                case "--distribution": o.distribution = value; break;
                case "--value-size": o.valueSize = nonNegativeInt(flag, value); break;
                case "--ack": o.ack = (int) positiveLong(flag, value); break;
                case "--from": o.from = (int) positiveLong(flag, value); break;
                case "--connections": o.connections = (int) positiveLong(flag, value); break;
                case "--threads": o.threads = (int) positiveLong(flag, value); break;
                case "--duration": o.durationSeconds = (int) positiveLong(flag, value); break;
                case "--warmup": o.warmupSeconds = nonNegativeInt(flag, value); break;
                case "--rate": o.rate = positiveDouble(flag, value); break;
                case "--preload": o.preload = positiveLong(flag, value); break;
                case "--hgrm": o.hgrm = Path.of(value); break;
                case "--seed": o.seed = parseLong(flag, value); break;
                case "--timeout": o.timeoutMillis = (int) positiveLong(flag, value); break;
                case "--transport": o.transport = nativeTransport(flag, value); break;
                default: throw new IllegalArgumentException("unknown option " + flag + " (see --help)");
            }
        }
        KeyChooser.of(o.distribution, Math.max(o.keys, 2)); // validates the name
        if (o.connections < o.threads * o.targets.size()) {
            throw new IllegalArgumentException("--connections (" + o.connections
                    + ") must be at least threads x targets (" + o.threads * o.targets.size() + ")");
        }
        return o;
    }

    boolean openLoop() {
        return rate > 0;
    }

    /**
     * Digits of the fixed-width key names ({@code key0000042}): those of the largest index, {@code --preload}'s
     * in a preload and {@code --keys}' otherwise, so that a preload of N keys and a run over {@code --keys N}
     * name the same keys. (Until 2026-11-24 a preload took the larger of the two, with --keys' default of
     * 1,000,000: a preload of 1,000 keys wrote {@code key000042} and a run over 1,000 keys read {@code key042}.)
     */
    int keyDigits() {
        return Long.toString((preload > 0 ? preload : keys) - 1).length();
    }

    /**
     * Whether the generator's event loops prefer Netty's native transport. By default they do in open
     * loop only: java.nio's selector waits in whole milliseconds, so with one of the lanes' timers
     * always less than half a millisecond away it polls without sleeping, a core's worth at 48k req/s,
     * taken from the server it measures on a small machine; epoll waits to the microsecond. Closed loop
     * sets no timers and keeps java.nio: a cheaper generator raises the ceiling, not the node, and
     * every closed-loop figure in docs/BENCHMARKS.md was taken with it.
     */
    boolean nativeTransport() {
        return transport != null ? transport : openLoop();
    }

    /** The query string appended to each request: {@code &ack=A&from=F} where given. */
    String replicationQuery() {
        return (ack == null ? "" : "&ack=" + ack) + (from == null ? "" : "&from=" + from);
    }

    /** {@code native} (Netty's epoll where it loads, else java.nio) or {@code nio}, as the server spells it. */
    static boolean nativeTransport(String flag, String value) {
        switch (value) {
            case "native": return true;
            case "nio": return false;
            default: throw new IllegalArgumentException(flag + " must be native or nio, got '" + value + "'");
        }
    }

    private static List<URI> parseTargets(String value) {
        List<URI> targets = new ArrayList<>();
        for (String t : value.split(",")) {
            URI uri;
            try {
                uri = URI.create(t.trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("bad target URL '" + t + "': " + e.getMessage());
            }
            if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("target must look like http://host:port, got '" + t + "'");
            }
            targets.add(uri);
        }
        return List.copyOf(targets);
    }

    private static long parseLong(String flag, String value) {
        try {
            return Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs an integer, got '" + value + "'");
        }
    }

    private static long positiveLong(String flag, String value) {
        long v = parseLong(flag, value);
        if (v < 1 || v > Integer.MAX_VALUE && !flag.equals("--keys") && !flag.equals("--preload")) {
            throw new IllegalArgumentException(flag + " must be a positive integer, got " + value);
        }
        return v;
    }

    private static int nonNegativeInt(String flag, String value) {
        long v = parseLong(flag, value);
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(flag + " must be >= 0, got " + value);
        }
        return (int) v;
    }

    private static double positiveDouble(String flag, String value) {
        double v;
        try {
            v = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got '" + value + "'");
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(flag + " must be > 0, got " + value);
        }
        return v;
    }
}
