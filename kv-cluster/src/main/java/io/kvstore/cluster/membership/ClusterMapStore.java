package io.kvstore.cluster.membership;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * This node's copy of the cluster map, kept in {@value #FILE} in the data directory. A map replaces the
 * current one only if its epoch is higher ({@link #adopt}) or, for the node making changes, only if the
 * current epoch is the expected one ({@link #compareAndSet}). Each replacement is written to a
 * temporary file, synced and renamed over the old one, so a crash leaves either map, never a torn one.
 * Thread-safe.
 */
public final class ClusterMapStore {
    /** The map's file in the data directory. */
    public static final String FILE = "cluster-map.json";
    private final Path file;
    private volatile ClusterMap current;

    private ClusterMapStore(Path file, ClusterMap current) {
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
        Path file = directory.resolve(FILE);
        if (Files.exists(file)) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            try {
                return new ClusterMapStore(file, ClusterMapCodec.fromJson(text));
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot read the cluster map in " + file + ": " + e.getMessage(), e);
            }
        }
        Files.createDirectories(directory);
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
        Path temporary = file.resolveSibling(FILE + ".tmp");
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(StandardCharsets.UTF_8.encode(ClusterMapCodec.toJson(map)));
            channel.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        } catch (IOException e) {
            // Some file systems cannot sync a directory; the rename is then as durable as they make it.
        }
    }
}
