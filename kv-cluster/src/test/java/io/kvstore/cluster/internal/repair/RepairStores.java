package io.kvstore.cluster.internal.repair;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The nodes of an exchange test without a network: each a {@link RepairResponder} over a real LSM
 * store, watched by a {@link WatchedDao}, in a directory of its own; the scans of all of them run on
 * one executor. Closing closes the stores and the executor.
 */
final class RepairStores implements AutoCloseable {
    static final List<String> NODES = List.of("http://a:1", "http://b:2", "http://c:3");
    static final Partitioner PARTITIONER = Partitioners.create("rendezvous", NODES);

    final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final Path dir;
    private final List<WatchedDao> daos = new ArrayList<>();
    private final List<RepairResponder> responders = new ArrayList<>();

    RepairStores(Path dir) {
        this.dir = dir;
    }

    /** The node {@code NODES.get(index)}, with an empty store. */
    RepairResponder node(int index) {
        try {
            WatchedDao dao = new WatchedDao(Engine.LSM.open(
                    DaoOptions.builder(dir.resolve("node" + index)).syncPolicy(SyncPolicy.NONE).build()));
            daos.add(dao);
            RepairResponder responder = new RepairResponder(NODES.get(index), dao, PARTITIONER, executor, new HybridClock(), 0);
            responders.add(responder);
            return responder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The store of {@code responder}. */
    WatchedDao dao(RepairResponder responder) {
        return daos.get(responders.indexOf(responder));
    }

    /** Forgets what every store's scans and reads met so far. */
    void forget() {
        for (WatchedDao dao : daos) {
            dao.forget();
        }
    }

    /** The entries of {@code [from, to)} ({@code null}: open end) in {@code dao}, by key. */
    static NavigableMap<byte[], Entry> contents(Dao dao, byte[] from, byte[] to) throws IOException {
        NavigableMap<byte[], Entry> within = new TreeMap<>(Bytes.ORDER);
        try (CloseableIterator<Entry> it = dao.range(from, to)) {
            while (it.hasNext()) {
                Entry entry = it.next();
                within.put(entry.key(), entry);
            }
        }
        return within;
    }

    static byte[] key(int i) {
        return String.format("key%07d", i).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(int i) {
        return ("value" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        for (Dao dao : daos) {
            dao.close();
        }
        executor.shutdownNow();
    }
}
