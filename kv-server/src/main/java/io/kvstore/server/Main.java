package io.kvstore.server;

import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone server: {@code java -jar kv-server/target/kv-server.jar [options]}. Without options it
 * serves a single node on port 8080 with data in {@code ./data}. SIGTERM (or Ctrl-C) stops accepting,
 * finishes requests in flight, flushes and closes the store.
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    static final String USAGE = String.join("\n",
            "Usage: java -jar kv-server/target/kv-server.jar [options]",
            "",
            "  --port N                  port to listen on (default 8080)",
            "  --data-dir DIR            where the store keeps its files (default ./data)",
            "  --cluster URL,URL,...     every node of the cluster, this one included, same order on every node",
            "                            (default: a single node, http://localhost:<port>)",
            "  --self URL                this node's URL as written in --cluster (default http://localhost:<port>)",
            "  --partitioner NAME        ring | rendezvous | modn | jump | maglev (default ring)",
            "  --vnodes N                virtual nodes per node for the ring (default 256)",
            "  --engine NAME             lsm | rocksdb (default lsm)",
            "  --sync POLICY             none | group | every: when the write-ahead log reaches the disk (default none:",
            "                            every acknowledged write survives a killed process, not a power cut)",
            "  --flush-threshold BYTES   memtable size before it is written to a table (default "
                    + KvServerConfig.DEFAULT_FLUSH_THRESHOLD_BYTES + ")",
            "  --max-key-bytes N         longest id after percent-decoding (default " + KvServerConfig.DEFAULT_MAX_KEY_BYTES
                    + ", at most " + KvServerConfig.LARGEST_MAX_KEY_BYTES + ")",
            "  --max-body-bytes N        largest request body; larger gets 413 (default " + KvServerConfig.DEFAULT_MAX_BODY_BYTES + ")",
            "  --max-in-flight N         requests in progress before 503 + Retry-After (default " + KvServerConfig.DEFAULT_MAX_IN_FLIGHT + ")",
            "  --max-buffered-bytes N    request body bytes held at once over all requests; beyond: 503",
            "                            (default: an eighth of the heap, at least --max-body-bytes)",
            "  --replica-timeout-ms N    how long a request waits for ack replicas before 504 (default 2000)",
            "  --idle-timeout-s N        idle connections are closed after this; connections to peers after half",
            "                            of it, so give every node of a cluster the same (default 60)",
            "  --request-timeout-s N     connections that take longer than this to send a request's body, or than",
            "                            this and the idle timeout to send its headers, however steadily the bytes",
            "                            trickle in, are closed (default 60)",
            "  --event-loops N           HTTP event loops (default: number of cores)",
            "  --storage-threads N       threads for point reads and writes that may block (reads of tables not",
            "                            in memory, memtable switches, synced writes); 0 runs all on the event loops",
            "                            (default: one per core with --sync none, else " + KvServerConfig.DEFAULT_SYNCING_STORAGE_THREADS + ")",
            "  --transport NAME          native | nio: native epoll where it loads (Linux), else java.nio (default native)",
            "  --background-priority P   CPU priority of the store's flush and compaction threads, so that they yield",
            "                            the cores to requests: idle (Linux's SCHED_IDLE) or a nice value 0-19, 0 the",
            "                            normal priority (default " + DaoOptions.DEFAULT_BACKGROUND_PRIORITY + ")",
            "  --help                    this text");

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        KvServerConfig config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("run with --help for the options");
            System.exit(2);
            return;
        }
        if (config == null) {
            System.out.println(USAGE);
            return;
        }
        KvServer server;
        try {
            server = KvServer.start(config).toCompletableFuture().get();
        } catch (Exception e) {
            LOG.error("could not start: {}", e.getCause() != null ? e.getCause().toString() : e.toString());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("shutting down: finishing requests in flight, then closing the store");
            try {
                server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.error("clean shutdown failed", e);
            } finally {
                stopped.countDown();
            }
        }, "kv-shutdown"));
        stopped.await();
    }

    /** The configuration the arguments describe, or {@code null} when help was asked for. */
    static KvServerConfig parse(String... args) {
        KvServerConfig.Builder b = KvServerConfig.builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                return null;
            }
            if (!flag.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + flag + "'");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + flag);
            }
            String value = args[++i];
            switch (flag) {
                case "--port": b.port(intValue(flag, value)); break;
                case "--data-dir": b.dataDirectory(Path.of(value)); break;
                case "--cluster": b.cluster(nodes(value)); break;
                case "--self": b.self(value.trim()); break;
                case "--partitioner": b.partitioner(value); break;
                case "--vnodes": b.virtualNodes(intValue(flag, value)); break;
                case "--engine": b.engine(Engine.fromName(value)); break;
                case "--sync": b.syncPolicy(syncPolicy(value)); break;
                case "--flush-threshold": b.flushThresholdBytes(longValue(flag, value)); break;
                case "--max-key-bytes": b.maxKeyBytes(intValue(flag, value)); break;
                case "--max-body-bytes": b.maxBodyBytes(intValue(flag, value)); break;
                case "--max-in-flight": b.maxInFlight(intValue(flag, value)); break;
                case "--max-buffered-bytes": b.maxBufferedBodyBytes(longValue(flag, value)); break;
                case "--replica-timeout-ms": b.replicaTimeout(Duration.ofMillis(longValue(flag, value))); break;
                case "--idle-timeout-s": b.idleTimeout(Duration.ofSeconds(longValue(flag, value))); break;
                case "--request-timeout-s": b.requestTimeout(Duration.ofSeconds(longValue(flag, value))); break;
                case "--event-loops": b.eventLoops(intValue(flag, value)); break;
                case "--storage-threads": b.storageThreads(intValue(flag, value)); break;
                case "--transport": b.nativeTransport(nativeTransport(flag, value)); break;
                case "--background-priority": b.backgroundPriority(BackgroundPriority.parse(value)); break;
                default: throw new IllegalArgumentException("unknown option " + flag);
            }
        }
        return b.build();
    }

    private static List<String> nodes(String csv) {
        List<String> nodes = Arrays.asList(csv.split(","));
        nodes.replaceAll(String::trim);
        return nodes;
    }

    private static boolean nativeTransport(String flag, String value) {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "native": return true;
            case "nio": return false;
            default: throw new IllegalArgumentException(flag + " must be native or nio, got '" + value + "'");
        }
    }

    private static SyncPolicy syncPolicy(String value) {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "none": return SyncPolicy.NONE;
            case "group": return SyncPolicy.GROUP_COMMIT;
            case "every": return SyncPolicy.EVERY_WRITE;
            default: throw new IllegalArgumentException("--sync must be none, group or every, got '" + value + "'");
        }
    }

    private static int intValue(String flag, String value) {
        long v = longValue(flag, value);
        if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
            throw new IllegalArgumentException(flag + " is out of range: " + value);
        }
        return (int) v;
    }

    private static long longValue(String flag, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " needs a number, got '" + value + "'");
        }
    }
}
