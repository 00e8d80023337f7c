package io.kvstore.bench.ycsb;

import io.kvstore.client.BlockingKvClient;
import io.kvstore.client.CallOptions;
import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for a kvstore cluster over HTTP (protocol v0), through one {@link KvClient} shared by
 * the client threads. Properties: {@code kvstore.urls} (comma-separated seed node URLs), optional
 * {@code kvstore.ack} and {@code kvstore.from}, {@code kvstore.routing} ({@code replica}, the default:
 * each request to a replica of its key; {@code targets}: round-robin over the URLs) and
 * {@code kvstore.timeout.ms}. A record's key is {@code table:key} in UTF-8.
 *
 * <p>Scans are not supported over HTTP: {@code /v0/entities} streams one node's own entries (the
 * cluster-wide range is an addition not every server has), so workload E runs embedded.
 */
public final class HttpYcsbDb extends DB {
    private static final Object LOCK = new Object();
    private static final int MAX_FAILURES_PRINTED = 10;
    private static final AtomicInteger FAILURES_PRINTED = new AtomicInteger();
    private static KvClient client;
    private static int users;

    private BlockingKvClient kv;
    private CallOptions options;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        CallOptions call = CallOptions.DEFAULT;
        try {
            String ack = p.getProperty("kvstore.ack");
            String from = p.getProperty("kvstore.from");
            call = ack == null ? call : call.ack(Integer.parseInt(ack));
            call = from == null ? call : call.from(Integer.parseInt(from));
        } catch (IllegalArgumentException e) {
            throw new DBException("bad kvstore.ack/kvstore.from: " + e.getMessage(), e);
        }
        options = call;
        String routing = p.getProperty("kvstore.routing", "replica");
        if (!routing.equals("replica") && !routing.equals("targets")) {
            throw new DBException("kvstore.routing must be replica or targets, got '" + routing + "'");
        }
        synchronized (LOCK) {
            if (client == null) {
                try {
                    client = KvClient.builder()
                            .seeds(p.getProperty("kvstore.urls", "http://localhost:8080").split(","))
                            .routing(routing.equals("replica") ? KvClient.Routing.REPLICA : KvClient.Routing.ROUND_ROBIN)
                            .timeout(Duration.ofMillis(Long.parseLong(p.getProperty("kvstore.timeout.ms", "10000"))))
                            .connectionsPerNode(Math.max(1, Integer.parseInt(p.getProperty("threadcount", "1"))))
                            .eventLoops(Math.min(2, Runtime.getRuntime().availableProcessors()))
                            .build();
                } catch (KvClientException | IllegalArgumentException e) {
                    throw new DBException("cannot start the kvstore client: " + e.getMessage(), e);
                }
            }
            users++;
            kv = client.blocking();
        }
    }

    @Override
    public void cleanup() {
        synchronized (LOCK) {
            if (--users == 0) {
                client.close();
                client = null;
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            Optional<byte[]> value = kv.get(key(table, key), options);
            if (value.isEmpty()) {
                return Status.NOT_FOUND;
            }
            Records.decode(value.get(), fields, result);
            return Status.OK;
        } catch (KvClientException e) {
            return failed(e);
        }
    }

    @Override
    public Status scan(String table, String startKey, int count, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        return Status.NOT_IMPLEMENTED;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] id = key(table, key);
            kv.put(id, Records.merge(kv.get(id, options).orElse(null), values), options);
            return Status.OK;
        } catch (KvClientException e) {
            return failed(e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            kv.put(key(table, key), Records.encode(values), options);
            return Status.OK;
        } catch (KvClientException e) {
            return failed(e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            kv.delete(key(table, key), options);
            return Status.OK;
        } catch (KvClientException e) {
            return failed(e);
        }
    }

    /** {@link Status#ERROR}, the first few failures' reasons printed so that a run's errors can be told apart. */
    private static Status failed(KvClientException e) {
        if (FAILURES_PRINTED.getAndIncrement() < MAX_FAILURES_PRINTED) {
            System.err.println("kvstore request failed: " + e);
        }
        return Status.ERROR;
    }

    private static byte[] key(String table, String key) {
        return (table + ':' + key).getBytes(StandardCharsets.UTF_8);
    }
}
