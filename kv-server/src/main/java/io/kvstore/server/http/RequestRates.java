package io.kvstore.server.http;

import io.kvstore.server.wire.Routes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each node is doing now, per operation (method and route): request and error rates, p50 and p99,
 * from the difference between two scrapes of its {@code /metrics}, since its counters and latency
 * histogram ({@link io.kvstore.server.metrics.RequestMetrics}) only add up since it started. The scrape
 * before the latest one is kept per node; one less than {@link #MIN_INTERVAL_MILLIS} older gives the
 * previous answer again, so that several console pages open at once do not shrink the interval to
 * noise.
 */
final class RequestRates {
    static final String REQUESTS = "vertx_http_server_requests_total";
    static final String LATENCY_BUCKETS = "vertx_http_server_response_time_seconds_bucket";
    static final long MIN_INTERVAL_MILLIS = 1_000;
    /** The background work shown beside the requests: anti-entropy, read repair and hint replay. */
    static final String REPAIR_EXCHANGES = "kv_repair_exchanges_total";
    static final String REPAIR_KEYS_SENT = "kv_repair_keys_sent_total";
    static final String REPAIR_KEYS_RECEIVED = "kv_repair_keys_received_total";
    static final String READ_REPAIRS = "kv_read_repairs_total";
    static final String HINTS = "kv_hints_total";
    /** The console's own calls, left out so that an idle cluster shows no traffic while it is watched. */
    private static final Set<String> CONSOLE_ROUTES = Set.of(Routes.METRICS, Routes.STATUS, Routes.CONSOLE, Routes.UI,
            Routes.MEMBERSHIP_CHANGE);
    /** The routes whose rate is the node's request rate: reads and writes of keys. */
    private static final Set<String> DATA_ROUTES = Set.of(Routes.ENTITY, Routes.ENTITIES);

    /** One operation's counters in one scrape: requests, 5xx answers, and latency buckets (upper bound in s to count). */
    static final class Counts {
        double requests;
        double errors;
        final TreeMap<Double, Double> buckets = new TreeMap<>();
    }

    /**
     * One scrape: the counts by operation ({@code "GET /v0/entity"}), the background counters (by name,
     * {@code kv_repair_exchanges_total} also as {@code kv_repair_exchanges_total:failed}, {@code kv_hints_total}
     * only its replayed hints), and when it was taken.
     */
    record Scrape(long atMillis, Map<String, Counts> operations, Map<String, Double> background) {
    }

    private record Window(Scrape base, JsonObject last) {
    }

    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /**
     * The rates of {@code node} between its previous scrape and {@code text}, taken at {@code atMillis}:
     * {@code {"intervalMillis", "requestsPerSecond", "errorsPerSecond", "operations": [...], "background"}}, or
     * null until a scrape of the node comes at least {@link #MIN_INTERVAL_MILLIS} after its first.
     */
    JsonObject observe(String node, String text, long atMillis) {
        Scrape now = parse(text, atMillis);
        Window window = windows.get(node);
        if (window == null) {
            windows.put(node, new Window(now, null));
            return null;
        }
        if (atMillis - window.base.atMillis < MIN_INTERVAL_MILLIS) {
            return window.last;
        }
        JsonObject rates = between(window.base, now);
        windows.put(node, new Window(now, rates));
        return rates;
    }

    /** Forgets the nodes not in {@code members}, which left the cluster. */
    void retain(Set<String> members) {
        windows.keySet().retainAll(members);
    }

    /** The rates from {@code before} to {@code after}; a counter that went back (the node restarted) counts from zero. */
    static JsonObject between(Scrape before, Scrape after) {
        double seconds = Math.max(1, after.atMillis - before.atMillis) / 1000.0;
        double requests = 0;
        double errors = 0;
        JsonArray operations = new JsonArray();
        for (Map.Entry<String, Counts> entry : new TreeMap<>(after.operations).entrySet()) {
            Counts now = entry.getValue();
            Counts then = before.operations.get(entry.getKey());
            boolean restarted = then != null && now.requests < then.requests;
            Counts base = then == null || restarted ? new Counts() : then;
            double count = now.requests - base.requests;
            if (count <= 0) {
                continue;
            }
            double failed = Math.max(0, now.errors - base.errors);
            String route = entry.getKey().substring(entry.getKey().indexOf(' ') + 1);
            if (DATA_ROUTES.contains(route)) {
                requests += count;
                errors += failed;
            }
            operations.add(new JsonObject().put("operation", entry.getKey())
                    .put("requestsPerSecond", round(count / seconds))
                    .put("errorsPerSecond", round(failed / seconds))
                    .put("p50Millis", quantile(base.buckets, now.buckets, 0.5))
                    .put("p99Millis", quantile(base.buckets, now.buckets, 0.99)));
        }
        return new JsonObject().put("intervalMillis", after.atMillis - before.atMillis)
                .put("requestsPerSecond", round(requests / seconds))
                .put("errorsPerSecond", round(errors / seconds))
                .put("operations", operations)
                .put("background", new JsonObject()
                        .put("repairExchanges", after.background.getOrDefault(REPAIR_EXCHANGES, 0.0))
                        .put("repairExchangesFailed", after.background.getOrDefault(REPAIR_EXCHANGES + ":failed", 0.0))
                        .put("repairKeysPerSecond", round((increase(before, after, REPAIR_KEYS_SENT)
                                + increase(before, after, REPAIR_KEYS_RECEIVED)) / seconds))
                        .put("readRepairsPerSecond", round(increase(before, after, READ_REPAIRS) / seconds))
                        .put("hintsReplayedPerSecond", round(increase(before, after, HINTS) / seconds)));
    }

    /** How much the background counter {@code name} grew, all of it if it went back (a restart). */
    private static double increase(Scrape before, Scrape after, String name) {
        double now = after.background.getOrDefault(name, 0.0);
        double then = before.background.getOrDefault(name, 0.0);
        return now >= then ? now - then : now;
    }

    /**
     * The {@code q} quantile in milliseconds of the requests between two cumulative histograms,
     * interpolated within its bucket as Prometheus' {@code histogram_quantile} does; null without requests.
     */
    static Double quantile(TreeMap<Double, Double> before, TreeMap<Double, Double> after, double q) {
        Double total = after.get(Double.POSITIVE_INFINITY);
        if (total == null) {
            return null;
        }
        double count = total - before.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
        if (count <= 0) {
            return null;
        }
        double target = q * count;
        double lowerBound = 0;
        double below = 0;
        for (Map.Entry<Double, Double> bucket : after.entrySet()) {
            double cumulative = bucket.getValue() - before.getOrDefault(bucket.getKey(), 0.0);
            if (cumulative >= target) {
                if (bucket.getKey().isInfinite()) {
                    return round(lowerBound * 1000);
                }
                double within = cumulative - below;
                double fraction = within <= 0 ? 1 : (target - below) / within;
                return round((lowerBound + (bucket.getKey() - lowerBound) * fraction) * 1000);
            }
            lowerBound = bucket.getKey();
            below = cumulative;
        }
        return round(lowerBound * 1000);
    }

    /** The request counters and latency buckets of a Prometheus text exposition, by operation; other samples are skipped. */
    static Scrape parse(String text, long atMillis) {
        Map<String, Counts> operations = new TreeMap<>();
        Map<String, Double> background = new TreeMap<>();
        for (String line : text.split("\n")) {
            boolean requests = line.startsWith(REQUESTS + "{");
            boolean bucket = line.startsWith(LATENCY_BUCKETS + "{");
            if (!requests && !bucket) {
                background(line, background);
                continue;
            }
            int open = line.indexOf('{');
            int close = line.lastIndexOf('}');
            if (close < open) {
                continue;
            }
            Map<String, String> labels = labels(line.substring(open + 1, close));
            String[] rest = line.substring(close + 1).trim().split("\\s+");
            double value;
            try {
                value = number(rest[0]);
            } catch (NumberFormatException e) {
                continue;
            }
            String operation = labels.getOrDefault("method", "?") + " " + labels.getOrDefault("route", "?");
            if (CONSOLE_ROUTES.contains(labels.get("route"))) {
                continue;
            }
            Counts counts = operations.computeIfAbsent(operation, o -> new Counts());
            if (requests) {
                counts.requests += value;
                if (labels.getOrDefault("code", "").startsWith("5")) {
                    counts.errors += value;
                }
            } else {
                String le = labels.get("le");
                if (le != null) {
                    try {
                        counts.buckets.merge(number(le), value, Double::sum);
                    } catch (NumberFormatException e) {
                        // not a bound: skip the sample
                    }
                }
            }
        }
        return new Scrape(atMillis, operations, background);
    }

    /** Adds {@code line} to {@code background} if it is a sample of one of the background counters. */
    private static void background(String line, Map<String, Double> background) {
        int end = line.indexOf('{');
        int space = line.indexOf(' ');
        end = end < 0 || space >= 0 && space < end ? space : end;
        if (end <= 0) {
            return;
        }
        String name = line.substring(0, end);
        if (!name.equals(REPAIR_EXCHANGES) && !name.equals(REPAIR_KEYS_SENT) && !name.equals(REPAIR_KEYS_RECEIVED)
                && !name.equals(READ_REPAIRS) && !name.equals(HINTS)) {
            return;
        }
        int close = line.lastIndexOf('}');
        Map<String, String> labels = line.charAt(end) == '{' && close > end ? labels(line.substring(end + 1, close)) : Map.of();
        if (name.equals(HINTS) && !"replayed".equals(labels.get("event"))) {
            return;
        }
        double value;
        try {
            value = number(line.substring(Math.max(close, end) + 1).trim().split("\\s+")[0]);
        } catch (NumberFormatException e) {
            return;
        }
        background.merge(name, value, Double::sum);
        if (name.equals(REPAIR_EXCHANGES) && "failed".equals(labels.get("outcome"))) {
            background.merge(name + ":failed", value, Double::sum);
        }
    }

    /** {@code name="value",...} with Prometheus' escapes in values. */
    static Map<String, String> labels(String text) {
        Map<String, String> labels = new TreeMap<>();
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            if (equals < 0 || equals + 1 >= text.length() || text.charAt(equals + 1) != '"') {
                break;
            }
            String name = text.substring(i, equals).trim();
            StringBuilder value = new StringBuilder();
            int j = equals + 2;
            for (; j < text.length() && text.charAt(j) != '"'; j++) {
                char c = text.charAt(j);
                if (c == '\\' && j + 1 < text.length()) {
                    char next = text.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            labels.put(name, value.toString());
            i = j + 1;
            if (i < text.length() && text.charAt(i) == ',') {
                i++;
            }
        }
        return labels;
    }

    private static double number(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
