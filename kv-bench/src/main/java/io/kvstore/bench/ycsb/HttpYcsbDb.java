package io.kvstore.bench.ycsb;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for a kvstore node or cluster over HTTP (protocol v0), through one shared Vert.x
 * client with keep-alive connections. Properties: {@code kvstore.urls} (comma-separated node URLs,
 * spread over the client threads), optional {@code kvstore.ack} and {@code kvstore.from}.
 *
 * <p>Scans are not supported over HTTP: {@code /v0/entities} has no count and its entries cannot be
 * split without the chunk boundaries, which HTTP clients do not expose; workload E runs embedded.
 */
public final class HttpYcsbDb extends DB {
    private static final Object LOCK = new Object();
    private static Vertx vertx;
    private static HttpClientAgent client;
    private static int users;
    private static int nextTarget;

    private Context context;
    private URI target;
    private String replication;
    private long timeoutMillis;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        List<URI> urls = new ArrayList<>();
        for (String url : p.getProperty("kvstore.urls", "http://localhost:8080").split(",")) {
            urls.add(URI.create(url.trim()));
        }
        String ack = p.getProperty("kvstore.ack");
        String from = p.getProperty("kvstore.from");
        replication = (ack == null ? "" : "&ack=" + ack) + (from == null ? "" : "&from=" + from);
        timeoutMillis = Long.parseLong(p.getProperty("kvstore.timeout.ms", "10000"));
        synchronized (LOCK) {
            if (vertx == null) {
                vertx = Vertx.vertx();
                client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                        new PoolOptions().setHttp1MaxSize(Integer.parseInt(p.getProperty("threadcount", "1")) * 2));
            }
            users++;
            context = vertx.getOrCreateContext();
            target = urls.get(nextTarget++ % urls.size());
        }
    }

    @Override
    public void cleanup() throws DBException {
        synchronized (LOCK) {
            if (--users == 0) {
                try {
                    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new DBException("closing the HTTP client failed", e);
                } finally {
                    vertx = null;
                    client = null;
                }
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        Answer answer = call(HttpMethod.GET, table, key, null);
        if (answer.status == 404) {
            return Status.NOT_FOUND;
        }
        if (answer.status != 200) {
            return Status.ERROR;
        }
        Records.decode(answer.body, fields, result);
        return Status.OK;
    }

    @Override
    public Status scan(String table, String startKey, int count, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        return Status.NOT_IMPLEMENTED;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        Answer stored = call(HttpMethod.GET, table, key, null);
        if (stored.status != 200 && stored.status != 404) {
            return Status.ERROR;
        }
        byte[] merged = Records.merge(stored.status == 200 ? stored.body : null, values);
        return call(HttpMethod.PUT, table, key, merged).status == 201 ? Status.OK : Status.ERROR;
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return call(HttpMethod.PUT, table, key, Records.encode(values)).status == 201 ? Status.OK : Status.ERROR;
    }

    @Override
    public Status delete(String table, String key) {
        return call(HttpMethod.DELETE, table, key, null).status == 202 ? Status.OK : Status.ERROR;
    }

    /** One request, waited for on this YCSB thread (never an event loop), with a timeout. */
    private Answer call(HttpMethod method, String table, String key, byte[] body) {
        RequestOptions request = new RequestOptions().setMethod(method).setHost(target.getHost())
                .setPort(target.getPort()).setIdleTimeout(timeoutMillis)
                .setURI("/v0/entity?id=" + URLEncoder.encode(table + ':' + key, StandardCharsets.UTF_8) + replication);
        try {
            CompletableFuture<Answer> answer = new CompletableFuture<>();
            // Issued from this thread's own event-loop context, never from the YCSB thread: the client's
            // connection pool hands out and recycles connections on event loops (asked from a foreign
            // thread, a request now and then waited forever for a connection that had been recycled).
            context.runOnContext(v -> client.request(request)
                    .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
                    .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), b.getBytes())))
                    .otherwise(error -> new Answer(-1, null)) // YCSB counts it as an ERROR
                    .onSuccess(answer::complete));
            return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (Exception e) { // timed out or interrupted: YCSB counts it as an ERROR
            return new Answer(-1, null);
        }
    }

    private static final class Answer {
        final int status;
        final byte[] body;

        Answer(int status, byte[] body) {
            this.status = status;
            this.body = body;
        }
    }
}
