package io.kvstore.server.membership;

import io.kvstore.cluster.internal.membership.ChangeRefusedException;
import io.kvstore.cluster.internal.membership.CleanupFilter;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.KeyFilter;
import io.kvstore.server.http.AdminOperation;
import io.kvstore.server.http.AdminOperations;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cleanup after a change of the cluster map: this node forgets the keys it is no longer a replica of
 * under the settled map ({@link Dao#cleanup} with a {@link CleanupFilter}, which also keeps what a
 * change begun since gives this node), as Cassandra's
 * {@code nodetool cleanup} does. The claimant asks every owner for one once a change completed, so
 * never before the nodes that gained the keys hold them; an operator may ask again
 * ({@code POST /v0/admin/cleanup}). Never while the map is in transition.
 *
 * <p>One cleanup at a time, on a thread of its own (a cleanup rewrites the store); a request that
 * arrives while one runs is served by the next run, which requests arriving meanwhile share. Each run,
 * the claimant's and the operators', is listed with its progress ({@link #runs()}) from the moment it is
 * queued.
 */
public final class NodeCleanup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeCleanup.class);
    /** How long a cleanup asked for at an epoch waits for this node to hold that epoch's map. */
    private static final long MAP_WAIT_MILLIS = 30_000;
    private static final long MAP_POLL_MILLIS = 100;

    /** What one cleanup did. */
    record Report(String node, long epoch, long keysRemoved, long durationMillis) {
        JsonObject toJson() {
            return new JsonObject().put("node", node).put("epoch", epoch).put("keysRemoved", keysRemoved)
                    .put("durationMillis", durationMillis);
        }
    }

    /** A run asked for: its entry in the list of runs, and what it did. */
    record Run(AdminOperation operation, CompletableFuture<Report> done) {
    }

    private final Dao dao;
    private final Supplier<ClusterMap> maps;
    private final String self;
    /** Runs cleanups at the store's background priority: a rewrite of the store yields the cores to requests. */
    private final ExecutorService thread;
    /** The run not started yet that new requests join, and the least map epoch it waits for; guarded by this. */
    private Run queued;
    private long queuedEpoch;
    private final AdminOperations runs;

    public NodeCleanup(Dao dao, Supplier<ClusterMap> maps, String self, BackgroundPriority priority) {
        this.dao = dao;
        this.thread = Executors.newSingleThreadExecutor(priority.threadFactory("kv-cleanup"));
        this.maps = maps;
        this.self = self;
        this.runs = new AdminOperations("cleanup", self);
    }

    /** The runs since this node started, for {@code GET /v0/admin/cleanup}. */
    AdminOperations runs() {
        return runs;
    }

    /**
     * Cleans up under this node's map once it holds a map of at least {@code minEpoch} (waiting up to
     * {@value #MAP_WAIT_MILLIS} ms for it). Fails with a {@link ChangeRefusedException} (409) while the
     * map is in transition or when this node owns no range in it.
     */
    synchronized Run request(long minEpoch) {
        if (queued != null) {
            queuedEpoch = Math.max(queuedEpoch, minEpoch);
            return queued;
        }
        Run run = new Run(runs.start(), new CompletableFuture<>());
        run.operation().planned(1);
        run.done().whenComplete((report, error) -> {
            if (error == null) {
                run.operation().partDone();
                run.operation().succeeded(report.toJson());
            } else {
                run.operation().failed(String.valueOf(error.getMessage()), null);
            }
        });
        queued = run;
        queuedEpoch = minEpoch;
        try {
            thread.execute(() -> {
                long epoch;
                synchronized (this) {
                    queued = null;
                    epoch = queuedEpoch;
                }
                try {
                    run.done().complete(run(epoch, run.operation()));
                } catch (RuntimeException | IOException e) {
                    run.done().completeExceptionally(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    run.done().completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException closed) {
            queued = null;
            run.done().completeExceptionally(new IllegalStateException("node " + self + " is shutting down"));
        }
        return run;
    }

    private Report run(long minEpoch, AdminOperation progress) throws IOException, InterruptedException {
        ClusterMap map = maps.get();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAP_WAIT_MILLIS);
        while (map.epoch() < minEpoch && System.nanoTime() < deadline) {
            Thread.sleep(MAP_POLL_MILLIS);
            map = maps.get();
        }
        if (map.epoch() < minEpoch) {
            throw new ChangeRefusedException(409, "node " + self + " is at map epoch " + map.epoch() + ", not yet at " + minEpoch);
        }
        if (map.inTransition()) {
            throw new ChangeRefusedException(409, "a change of the cluster map is in progress (epoch " + map.epoch()
                    + "): cleanup waits until it completes; map: " + map);
        }
        if (!map.owners().contains(self)) {
            throw new ChangeRefusedException(409, "node " + self + " owns no range in the map of epoch " + map.epoch()
                    + "; map: " + map);
        }
        CleanupFilter owned = new CleanupFilter(map, self, maps);
        long started = System.nanoTime();
        long removed = 0;
        if (!owned.keepsAll()) {
            // The rewrite reads every table; the filter sees each key once, as it decides it.
            DaoProperties tables = dao.properties();
            progress.bytesTotal(tables.tableBytes());
            // The filter sees each key once, and a table entry is a key's version or tombstone: an upper bound.
            progress.keysTotal(tables.tableEntries());
            KeyFilter counted = key -> {
                progress.scanned(1);
                boolean keep = owned.keeps(key);
                if (!keep) {
                    progress.done(1, 0);
                }
                return keep;
            };
            try {
                removed = dao.cleanup(counted);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        Report report = new Report(self, map.epoch(), removed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        LOG.info("cleanup of {} under the map of epoch {}: {} keys it no longer owns removed in {} ms", self, map.epoch(),
                removed, report.durationMillis());
        return report;
    }

    /** Stops the cleanup thread; a cleanup under way is interrupted and its store left as the engine leaves it. */
    @Override
    public void close() throws InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(10, TimeUnit.SECONDS);
    }
}
