package io.kvstore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the generator for real against the ceiling server on an ephemeral port. */
@Tag("slow")
class LoadGeneratorTest {
    private static CeilingServer ceiling;

    @BeforeAll
    static void startCeiling() throws Exception {
        ceiling = CeilingServer.start(0, 1, 100, true).toCompletionStage().toCompletableFuture().get();
    }

    @AfterAll
    static void stopCeiling() throws Exception {
        ceiling.stop().toCompletionStage().toCompletableFuture().get();
    }

    @Test
    void closedLoopReportsRateStatusesAndPercentiles(@TempDir Path dir) throws Exception {
        Path hgrm = dir.resolve("run.hgrm");
        String report = run(0, "--targets", target(), "--ops", "put=1,get=1", "--keys", "1000",
                "--connections", "4", "--duration", "1", "--warmup", "1", "--hgrm", hgrm.toString());
        assertTrue(report.contains("201=") && report.contains("200="), report);
        assertTrue(rps(report) > 100, report);
        assertTrue(report.contains("errors=0 non2xx=0"), report);
        assertTrue(report.contains("threads=1 on java.nio,"), "closed loop keeps java.nio: " + report);
        assertTrue(Files.readString(hgrm).contains("Percentile"), "hgrm written");
    }

    @Test
    void openLoopHoldsTheRequestedRate() throws Exception {
        String report = run(0, "--targets", target(), "--ops", "get", "--rate", "500", "--connections", "2",
                "--duration", "2", "--warmup", "0");
        assertEquals(500, rps(report), 100, report);
        assertTrue(report.contains("RESULT mode=open"), report);
        Vertx probe = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
        boolean nativeLoads = probe.isNativeTransportEnabled();
        probe.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(report.contains(nativeLoads ? " on epoll," : " on java.nio,"),
                "open loop on the native transport where it loads: " + report);
        // A loopback round trip takes tens of microseconds: a median near zero would mean requests
        // were timed from a slot later than when they actually left.
        Matcher p50 = Pattern.compile(" p50=([\\d.]+)").matcher(report);
        assertTrue(p50.find() && Double.parseDouble(p50.group(1)) >= 0.005, report);
    }

    /**
     * A server that answers nothing for 1.5 s from the run's first request (the one before is the
     * generator's reachability check), then takes 3 ms per request: an open-loop lane
     * (one per connection, one slot every 4 ms) is then 1.5 s behind and gains only 1 ms per request.
     * Had the warm-up carried that backlog into the measurement, its latencies would be ~1 s.
     */
    @Test
    void warmUpBacklogIsNotMeasured() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            AtomicInteger requests = new AtomicInteger();
            AtomicLong stalledUntil = new AtomicLong();
            HttpServer slow = vertx.createHttpServer().requestHandler(request -> {
                if (requests.incrementAndGet() == 2) {
                    stalledUntil.set(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500));
                }
                long waitMillis = Math.max(3, TimeUnit.NANOSECONDS.toMillis(stalledUntil.get() - System.nanoTime()));
                vertx.setTimer(waitMillis, id -> request.response().end("v"));
            });
            int port = slow.listen(0).toCompletionStage().toCompletableFuture().get().actualPort();
            String report = run(0, "--targets", "http://127.0.0.1:" + port, "--ops", "get", "--rate", "250",
                    "--connections", "1", "--warmup", "2", "--duration", "1");
            Matcher p99 = Pattern.compile(" p99=([\\d.]+)").matcher(report);
            assertTrue(p99.find() && Double.parseDouble(p99.group(1)) < 500, report);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get();
        }
    }

    @Test
    void intervalLogHasOneLineOfPercentilesPerWindow(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("windows.txt");
        String report = run(0, "--targets", target(), "--ops", "put", "--rate", "400", "--connections", "2",
                "--duration", "3", "--warmup", "1", "--interval", "1", "--interval-log", log.toString());
        List<String> lines = Files.readAllLines(log);
        assertEquals(IntervalLog.HEADER, lines.get(0), String.join("\n", lines));
        assertEquals(4, lines.size(), "a header and three windows: " + lines);
        long requests = 0;
        for (int i = 1; i < lines.size(); i++) {
            String[] fields = lines.get(i).split(" ");
            assertEquals(6, fields.length, lines.get(i));
            assertEquals(i, Integer.parseInt(fields[0]), "seconds since the warm-up: " + lines.get(i));
            double p50 = Double.parseDouble(fields[2]);
            double p99 = Double.parseDouble(fields[3]);
            assertTrue(p50 > 0 && p50 <= p99 && p99 <= Double.parseDouble(fields[5]), lines.get(i));
            requests += Long.parseLong(fields[1]);
        }
        Matcher total = Pattern.compile("requests: (\\d+) ").matcher(report);
        assertTrue(total.find(), report);
        assertEquals(Long.parseLong(total.group(1)), requests, 5.0, "the windows hold the measured requests: " + lines);
    }

    @Test
    void preloadPutsEachKeyOnce() throws Exception {
        String report = run(0, "--targets", target(), "--preload", "2000", "--connections", "8");
        assertTrue(report.contains("requests: 2000 "), report);
        assertTrue(report.contains("status: {201=2000}"), report);
    }

    /**
     * Values as incompressible as random data: one value sent over and over would flatter every table
     * the server writes.
     */
    @Test
    void everyPutCarriesDifferentRandomBytes() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            List<byte[]> bodies = Collections.synchronizedList(new ArrayList<>());
            HttpServer recorder = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
                if (request.method() == HttpMethod.PUT) {
                    bodies.add(body.getBytes());
                }
                request.response().setStatusCode(request.method() == HttpMethod.PUT ? 201 : 200).end();
            }));
            int port = recorder.listen(0).toCompletionStage().toCompletableFuture().get().actualPort();
            run(0, "--targets", "http://127.0.0.1:" + port, "--preload", "500", "--value-size", "100",
                    "--connections", "4");
            assertEquals(500, bodies.size());
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            Set<String> distinct = new HashSet<>();
            for (byte[] body : bodies) {
                assertEquals(100, body.length);
                distinct.add(Base64.getEncoder().encodeToString(body));
                all.writeBytes(body);
            }
            assertEquals(500, distinct.size(), "no value sent twice");
            Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
            deflater.setInput(all.toByteArray());
            deflater.finish();
            byte[] out = new byte[2 * all.size()];
            int compressed = deflater.deflate(out);
            deflater.end();
            assertTrue(compressed > 0.9 * all.size(), "the values compress as random bytes do: " + compressed + " of " + all.size());
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get();
        }
    }

    /** A range names fixed-width keys [key, key + --range-keys), up to the last key, and goes to the targets in turn. */
    @Test
    void rangesReadTheirKeysFromTheTargetsInTurn() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            List<String> ranges = Collections.synchronizedList(new ArrayList<>());
            Set<Integer> portsAsked = Collections.synchronizedSet(new HashSet<>());
            List<String> targets = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                HttpServer recorder = vertx.createHttpServer().requestHandler(request -> {
                    if (request.path().equals("/v0/entities")) {
                        ranges.add(request.uri());
                        portsAsked.add(request.localAddress().port());
                    }
                    request.response().end("key0001\nv\n");
                });
                targets.add("http://127.0.0.1:" + recorder.listen(0).toCompletionStage().toCompletableFuture().get().actualPort());
            }
            String report = run(0, "--targets", String.join(",", targets), "--ops", "range", "--keys", "1000",
                    "--range-keys", "10", "--connections", "2", "--duration", "1", "--warmup", "0");
            assertTrue(report.contains(" errors=0 non2xx=0"), report);
            assertTrue(rps(report) > 10, report);
            assertEquals(2, portsAsked.size(), "both targets: " + ranges.size() + " ranges");
            Pattern range = Pattern.compile("/v0/entities\\?start=key(\\d{3})(&end=key(\\d{3}))?");
            for (String uri : List.copyOf(ranges)) {
                Matcher m = range.matcher(uri);
                assertTrue(m.matches(), uri);
                int start = Integer.parseInt(m.group(1));
                if (start + 10 < 1000) {
                    assertEquals(start + 10, Integer.parseInt(m.group(3)), uri);
                } else {
                    assertNull(m.group(2), "to the last key: " + uri);
                }
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get();
        }
    }

    @Test
    void unreachableTargetIsAClearError() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGenerator.run(LoadOptions.parse("--targets", "http://127.0.0.1:" + closedPort, "--routing", "targets",
                "--duration", "1", "--timeout", "2000"), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("error: cannot reach http://127.0.0.1:" + closedPort),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void replicaRoutingSendsThroughTheClientToThreeNodes(@TempDir Path dir) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (ServerSocket socket = new ServerSocket(0)) {
                urls.add("http://127.0.0.1:" + socket.getLocalPort());
            }
        }
        List<KvServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(KvServer.start(KvServerConfig.builder().port(Integer.parseInt(urls.get(i).substring(17)))
                        .self(urls.get(i)).cluster(urls).dataDirectory(dir.resolve("node-" + i))
                        .network(network -> network.eventLoops(1)).build())
                        .toCompletableFuture().get());
            }
            String report = run(0, "--targets", urls.get(2) + "," + urls.get(0), "--routing", "replica", "--ops", "put=1,get=1",
                    "--keys", "500", "--ack", "2", "--from", "3", "--connections", "4", "--duration", "1", "--warmup", "1");
            Matcher statuses = Pattern.compile("status: \\{(.*)}").matcher(report);
            assertTrue(statuses.find() && statuses.group(1).matches("(200=\\d+, )?201=\\d+(, 404=\\d+)?"), report);
            assertTrue(report.contains(" errors=0 "), report);
            assertTrue(report.contains("routing=replica, ack=2&from=3"), report);
        } finally {
            for (KvServer node : nodes) {
                node.stop().toCompletableFuture().get();
            }
        }
    }

    @Test
    void replicaRoutingAgainstAServerWithoutAClusterMapIsAClearError() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGenerator.run(LoadOptions.parse("--targets", target(), "--routing", "replica", "--duration", "1"),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--routing targets"), err.toString(StandardCharsets.UTF_8));
    }

    private static String target() {
        return "http://127.0.0.1:" + ceiling.port();
    }

    /** Runs the generator with {@code args}, sent round-robin to the targets unless they name a routing. */
    private static String run(int expectedCode, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--routing")) {
            all.addAll(List.of("--routing", "targets"));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = LoadGenerator.run(LoadOptions.parse(all.toArray(new String[0])), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream()));
        String report = out.toString(StandardCharsets.UTF_8);
        assertEquals(expectedCode, code, report);
        return report;
    }

    private static double rps(String report) {
        Matcher m = Pattern.compile("RESULT mode=\\w+ rps=(\\d+)").matcher(report);
        assertTrue(m.find(), report);
        return Double.parseDouble(m.group(1));
    }
}
