package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.core.AtomicFile;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * This node's copy of the cluster map, kept in {@value #FILE} in the data directory. A map replaces the
 * current one only if its epoch is higher ({@link #adopt}) or, for the node making changes, only if the
 * current epoch is the expected one ({@link #compareAndSet}). The file is an {@link AtomicFile}, so a
 * crash leaves either map, never a torn one. A map is installed only once its file is written: one
 * that cannot be (a full disk: an {@link InsufficientStorageException}) is refused, and the node keeps
 * the map it had, in memory and on disk.
 * Thread-safe.
 */
public final class ClusterMapStore {
    /** The map's file in the data directory. */
    public static final String FILE = "cluster-map.json";
    private final AtomicFile file;
    private volatile ClusterMap current;

    private ClusterMapStore(AtomicFile file, ClusterMap current) {
        this.file = file;
        this.current = current;
    }

    /**
     * Opens the map kept in {@code directory}, or keeps {@code seed} there if there is none yet (a
     * {@code null} seed then leaves the store empty until the first {@link #adopt}).
     *
     * @throws IOException if the file cannot be read or written, or holds no valid map (the message names it)
     */
    public static ClusterMapStore open(Path directory, ClusterMap seed) throws IOException {
        return open(Storage.local(), directory, seed);
    }

    /** {@link #open(Path, ClusterMap)} in {@code storage}. */
    public static ClusterMapStore open(Storage storage, Path directory, ClusterMap seed) throws IOException {
        AtomicFile file = new AtomicFile(storage, directory.resolve(FILE));
        byte[] saved = file.read();
        if (saved != null) {
            String text = new String(saved, StandardCharsets.UTF_8);
            try {
                return new ClusterMapStore(file, ClusterMapCodec.fromJson(text));
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot read the cluster map in " + file + ": " + e.getMessage(), e);
            }
        }
        storage.createDirectories(directory);
        ClusterMapStore store = new ClusterMapStore(file, null);
        if (seed != null) {
            store.write(seed);
            store.current = seed;
        }
        return store;
    }

    /** The current map; {@code null} only before the first {@link #adopt} of a store opened without a seed. */
    public ClusterMap current() {
        return current;
    }

    /**
     * Replaces the current map whatever its epoch: for a node that is not in the map it kept and is
     * told to seed a new cluster instead.
     */
    public synchronized void reset(ClusterMap map) throws IOException {
        write(map);
        current = map;
    }

    /** Keeps {@code map} if it is newer than the current one; returns whether it did. */
    public synchronized boolean adopt(ClusterMap map) throws IOException {
        if (current != null && map.epoch() <= current.epoch()) {
            return false;
        }
        write(map);
        current = map;
        return true;
    }

    /**
     * Keeps {@code next} if the current epoch is {@code expectedEpoch} and {@code next} is its successor.
     *
     * @return whether it did
     */
    public synchronized boolean compareAndSet(long expectedEpoch, ClusterMap next) throws IOException {
        if (current == null || current.epoch() != expectedEpoch || next.epoch() != expectedEpoch + 1) {
            return false;
        }
        write(next);
        current = next;
        return true;
    }

    private void write(ClusterMap map) throws IOException {
        try {
            file.replace(ClusterMapCodec.toJson(map).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw InsufficientStorageException.ifNoSpace(e, "the cluster map of epoch " + map.epoch()
                    + " is refused: no space to keep it in " + file);
        }
    }
}
