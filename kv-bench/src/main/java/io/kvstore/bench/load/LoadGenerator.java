package io.kvstore.bench.load;

import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * HTTP load generator for the kvstore protocol: closed loop (maximum rate) or open loop at a fixed rate
 * with latency measured from when each request was due (as wrk2 does, so a stalled server cannot hide
 * its stall by slowing the generator down), and a preload mode that fills a store with N keys.
 *
 * <p>Progress goes to stderr once a second; the report goes to stdout and ends with one
 * {@code RESULT key=value ...} line for scripts.
 */
public final class LoadGenerator {

    private LoadGenerator() {
    }

    /** Runs the load {@code args} describe ({@link LoadOptions}); {@code --help} lists the options. */
    public static void main(String[] args) {
        System.exit(LoadOptions.commandLine(new LoadOptions()).execute(args));
    }

    /** Runs one load and prints its report; returns the process exit code. */
    static int run(LoadOptions options, PrintStream out, PrintStream progress) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(options.threads).setPreferNativeTransport(options.nativeTransport()));
        try {
            String unreachable = preflight(vertx, options);
            if (unreachable != null) {
                progress.println("error: " + unreachable);
                return 1;
            }
            return options.preload > 0 ? preload(vertx, options, out, progress) : timedRun(vertx, options, out, progress);
        } catch (KvClientException e) {
            progress.println("error: " + e.getMessage() + (options.routing == KvClient.Routing.REPLICA
                    ? " (--routing targets sends to the targets without reading a cluster map)" : ""));
            return 1;
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static int timedRun(Vertx vertx, LoadOptions options, PrintStream out, PrintStream progress)
            throws Exception {
        long start = System.nanoTime();
        long warmupEnd = start + TimeUnit.SECONDS.toNanos(options.warmupSeconds);
        List<LoadWorker> workers = startWorkers(vertx, options, null, warmupEnd);
        long end = warmupEnd + TimeUnit.SECONDS.toNanos(options.durationSeconds);
        Histogram total = new Histogram(3_600_000_000L, 3);
        try (IntervalLog windows = options.intervalLog == null ? null
                : new IntervalLog(options.intervalLog, options.intervalSeconds)) {
            Counts atWarmupEnd = measure(workers, options, progress, start, warmupEnd, end, total, windows);
            Counts atEnd = Counts.of(workers);
            drain(workers, options, progress);
            Histogram late = intervalHistogram(workers);
            total.add(late);
            if (windows != null) {
                windows.addLate(late);
            }
            report(vertx, options, out, atEnd.minus(atWarmupEnd), options.durationSeconds, total);
            reportByStatus(workers, out);
        }
        return 0;
    }

    /**
     * Prints progress once a second until {@code end}, adding each measured second to {@code total} and
     * {@code windows} (if any); returns the counts at the end of the warm-up.
     */
    private static Counts measure(List<LoadWorker> workers, LoadOptions options, PrintStream progress, long start,
            long warmupEnd, long end, Histogram total, IntervalLog windows) throws InterruptedException {
        Counts atWarmupEnd = options.warmupSeconds == 0 ? Counts.of(workers) : null;
        long mapRefresh = options.routing == KvClient.Routing.REPLICA && options.warmupSeconds >= 2
                ? start + (warmupEnd - start) / 2 : Long.MAX_VALUE;
        long lastCompleted = 0;
        for (long tick = start + TimeUnit.SECONDS.toNanos(1); ; tick += TimeUnit.SECONDS.toNanos(1)) {
            long now = System.nanoTime();
            TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(tick, end) - now)); // a clock, not a wait for work
            now = System.nanoTime();
            Histogram interval = intervalHistogram(workers);
            boolean measured = atWarmupEnd != null; // was the interval that just ended measured?
            if (measured) {
                total.add(interval);
                if (windows != null) {
                    windows.addSecond(interval);
                }
            } else if (now >= warmupEnd) {
                atWarmupEnd = Counts.of(workers); // warm-up ends here: what came before is discarded
            } else if (now >= mapRefresh) {
                // Reading the cluster map takes paths the requests never take; the first read after
                // the request path is compiled deoptimizes it once, which belongs in the warm-up.
                workers.forEach(LoadWorker::refreshClusterMap);
                mapRefresh = Long.MAX_VALUE;
            }
            long completed = Counts.of(workers).completed;
            progress.printf(Locale.ROOT, "%6.1f s  %s  %9.0f req/s  p99 %8.2f ms%n",
                    (now - start) / 1e9, measured ? "measure" : "warm-up",
                    (completed - lastCompleted) / 1.0, interval.getValueAtPercentile(99) / 1000.0);
            lastCompleted = completed;
            if (now >= end) {
                return atWarmupEnd;
            }
        }
    }

    private static int preload(Vertx vertx, LoadOptions options, PrintStream out, PrintStream progress)
            throws Exception {
        AtomicLong cursor = new AtomicLong();
        List<LoadWorker> workers = startWorkers(vertx, options, cursor, 0);
        long start = System.nanoTime();
        CompletableFuture<Void> all = CompletableFuture.allOf(
                workers.stream().map(LoadWorker::drained).toArray(CompletableFuture[]::new));
        Histogram total = new Histogram(3_600_000_000L, 3);
        while (true) {
            try {
                all.get(1, TimeUnit.SECONDS);
                break;
            } catch (TimeoutException e) {
                total.add(intervalHistogram(workers));
                progress.printf(Locale.ROOT, "%6.1f s  preloaded %d of %d%n",
                        (System.nanoTime() - start) / 1e9, Counts.of(workers).completed, options.preload);
            }
        }
        total.add(intervalHistogram(workers));
        double seconds = (System.nanoTime() - start) / 1e9;
        closeAll(workers);
        report(vertx, options, out, Counts.of(workers), seconds, total);
        return 0;
    }

    private static List<LoadWorker> startWorkers(Vertx vertx, LoadOptions options, AtomicLong preloadCursor,
            long warmupEndNanos) {
        List<LoadWorker> workers = new ArrayList<>();
        for (int i = 0; i < options.threads; i++) {
            int connections = options.connections / options.threads
                    + (i < options.connections % options.threads ? 1 : 0);
            workers.add(new LoadWorker(vertx, options, connections, options.rate / options.threads,
                    preloadCursor, options.seed + i, warmupEndNanos));
        }
        workers.forEach(LoadWorker::start);
        return workers;
    }

    private static void drain(List<LoadWorker> workers, LoadOptions options, PrintStream progress) throws Exception {
        CompletableFuture<Void> all = CompletableFuture.allOf(
                workers.stream().map(LoadWorker::stop).toArray(CompletableFuture[]::new));
        try {
            all.get(options.timeoutMillis + 2_000L, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            progress.println("warning: some requests were still in flight when the run ended");
        }
        closeAll(workers);
    }

    private static void closeAll(List<LoadWorker> workers) {
        for (LoadWorker worker : workers) {
            worker.close();
        }
    }

    private static Histogram intervalHistogram(List<LoadWorker> workers) {
        Histogram sum = new Histogram(3_600_000_000L, 3);
        for (LoadWorker worker : workers) {
            sum.add(worker.latencyMicros.getIntervalHistogram());
        }
        return sum;
    }

    /** Sends one request to each target; any HTTP answer means reachable. Returns an error or null. */
    private static String preflight(Vertx vertx, LoadOptions options) throws InterruptedException {
        HttpClientAgent client = vertx.createHttpClient(options.httpClientOptions());
        try {
            for (URI target : options.targets) {
                RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET)
                        .setHost(target.getHost()).setPort(target.getPort()).setURI("/v0/status")
                        .setIdleTimeout(options.timeoutMillis);
                try {
                    client.request(request).compose(req -> req.send()).compose(resp -> resp.body())
                            .toCompletionStage().toCompletableFuture()
                            .get(options.timeoutMillis, TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    return "cannot reach " + target + ": " + cause;
                }
            }
            return null;
        } finally {
            client.close();
        }
    }

    private static void report(Vertx vertx, LoadOptions options, PrintStream out, Counts counts, double seconds,
            Histogram latency) throws IOException {
        String mode = options.preload > 0 ? "preload"
                : options.openLoop() ? String.format(Locale.ROOT, "open loop at %.0f req/s", options.rate) : "closed loop";
        out.printf(Locale.ROOT, "kvstore load: %s, ops=%s, keys=%d %s, value=%d B, connections=%d, threads=%d on %s, targets=%s%s%n",
                mode, options.preload > 0 ? "put" : options.opsSpec, options.preload > 0 ? options.preload : options.keys,
                options.distribution, options.valueSize, options.connections, options.threads,
                vertx.isNativeTransportEnabled() ? "epoll" : "java.nio", options.targets + ", routing=" + options.routingSpec,
                options.replicationQuery().isEmpty() ? "" : ", " + options.replicationQuery().substring(1));
        double rps = counts.completed / seconds;
        out.printf(Locale.ROOT, "requests: %d in %.1f s = %.0f req/s (seed %d)%n", counts.completed, seconds, rps, options.seed);
        out.println("status: " + (counts.statuses.isEmpty() ? "none" : counts.statuses));
        if (!counts.errors.isEmpty()) {
            out.println("errors: " + counts.errors);
        }
        double[] percentiles = {50, 75, 90, 99, 99.9, 99.99};
        StringBuilder line = new StringBuilder("latency ms:");
        StringBuilder result = new StringBuilder();
        for (double p : percentiles) {
            double ms = latency.getValueAtPercentile(p) / 1000.0;
            line.append(String.format(Locale.ROOT, " p%s=%.3f", trim(p), ms));
            result.append(String.format(Locale.ROOT, " p%s=%.3f", trim(p).replace(".", ""), ms));
        }
        double max = latency.getMaxValue() / 1000.0;
        out.println(line + String.format(Locale.ROOT, " max=%.3f", max));
        long errors = counts.errors.values().stream().mapToLong(Long::longValue).sum();
        long non2xx = counts.statuses.entrySet().stream().filter(e -> e.getKey() < 200 || e.getKey() > 299)
                .mapToLong(Map.Entry::getValue).sum();
        out.printf(Locale.ROOT, "RESULT mode=%s rps=%.0f%s max=%.3f errors=%d non2xx=%d%n",
                options.preload > 0 ? "preload" : options.openLoop() ? "open" : "closed", rps, result, max, errors, non2xx);
        if (options.hgrm != null) {
            try (PrintStream file = new PrintStream(Files.newOutputStream(options.hgrm))) {
                latency.outputPercentileDistribution(file, 1000.0);
            }
        }
    }

    /** The 2xx answers' latency and how soon the 503s came, each over the measured time. */
    private static void reportByStatus(List<LoadWorker> workers, PrintStream out) {
        Histogram served = new Histogram(3_600_000_000L, 3);
        Histogram refused = new Histogram(3_600_000_000L, 3);
        for (LoadWorker w : workers) {
            served.add(w.servedMicros);
            refused.add(w.refusedMicros);
        }
        out.printf(Locale.ROOT, "2xx latency ms: count=%d p50=%.3f p99=%.3f max=%.3f%n", served.getTotalCount(),
                served.getValueAtPercentile(50) / 1000.0, served.getValueAtPercentile(99) / 1000.0, served.getMaxValue() / 1000.0);
        if (refused.getTotalCount() > 0) {
            out.printf(Locale.ROOT, "503 answered in ms: count=%d p50=%.3f p99=%.3f max=%.3f%n", refused.getTotalCount(),
                    refused.getValueAtPercentile(50) / 1000.0, refused.getValueAtPercentile(99) / 1000.0, refused.getMaxValue() / 1000.0);
        }
    }

    private static String trim(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** Completed requests, statuses and errors summed over the workers at one instant. */
    private static final class Counts {
        final long completed;
        final Map<Integer, Long> statuses;
        final Map<String, Long> errors;

        private Counts(long completed, Map<Integer, Long> statuses, Map<String, Long> errors) {
            this.completed = completed;
            this.statuses = statuses;
            this.errors = errors;
        }

        static Counts of(List<LoadWorker> workers) {
            long completed = 0;
            Map<Integer, Long> statuses = new TreeMap<>();
            Map<String, Long> errors = new TreeMap<>();
            for (LoadWorker w : workers) {
                completed += w.completed.get();
                for (int s = 0; s < w.statusCounts.length(); s++) {
                    long n = w.statusCounts.get(s);
                    if (n > 0) {
                        statuses.merge(s, n, Long::sum);
                    }
                }
                w.errors.forEach((k, v) -> errors.merge(k, v.sum(), Long::sum));
            }
            return new Counts(completed, statuses, errors);
        }

        Counts minus(Counts earlier) {
            Map<Integer, Long> statuses = new TreeMap<>(this.statuses);
            earlier.statuses.forEach((k, v) -> statuses.merge(k, -v, Long::sum));
            statuses.values().removeIf(v -> v == 0);
            Map<String, Long> errors = new TreeMap<>(this.errors);
            earlier.errors.forEach((k, v) -> errors.merge(k, -v, Long::sum));
            errors.values().removeIf(v -> v == 0);
            return new Counts(completed - earlier.completed, statuses, errors);
        }
    }
}
