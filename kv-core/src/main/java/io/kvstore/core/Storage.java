package io.kvstore.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The file system as a store uses it. Every file of the engine (log, tables, manifest, lock, clock
 * lease) and of a cluster node's own state is opened, renamed, deleted and listed through one of these,
 * so that tests can put a disk that fails, fills up, loses power or flips bits under the store without
 * changing the store, as leveldb's {@code Env} lets them.
 *
 * <p>A file's contents are read, written, memory-mapped and forced through the {@link FileChannel} that
 * {@link #open} returns, which an implementation may subclass: {@link FileChannel#map} maps a region,
 * {@link FileChannel#force} makes durable what was written through the channel and through its
 * writable mappings. The names in a directory are durable once {@link #syncDirectory} returns.
 * {@link #local()} is the real file system; its channels are the JDK's own, so the engine's hot paths
 * pay nothing for the indirection. Implementations are thread-safe.
 */
public interface Storage {
    /** The real file system, through {@code java.nio}. */
    static Storage local() {
        return LocalStorage.INSTANCE;
    }

    /** Opens (or creates, as {@code options} say) {@code file}, as {@link FileChannel#open(Path, OpenOption...)}. */
    FileChannel open(Path file, OpenOption... options) throws IOException;

    /**
     * Forces {@code directory}'s entries (creations, renames, deletions) to the device: fsyncing a new
     * file makes its contents durable, but its name only once its directory is forced too (POSIX).
     */
    void syncDirectory(Path directory) throws IOException;

    /** Renames {@code source} to {@code target} atomically, replacing {@code target} if it exists. */
    void rename(Path source, Path target) throws IOException;

    /** Deletes {@code file} if it exists; returns whether it did. */
    boolean delete(Path file) throws IOException;

    /** The entries of {@code directory}, in no particular order. */
    List<Path> list(Path directory) throws IOException;

    /** Whether {@code file} exists. */
    boolean exists(Path file);

    /** The size of {@code file} in bytes. */
    long size(Path file) throws IOException;

    /** Creates {@code directory} and any missing parents; nothing if it exists. */
    void createDirectories(Path directory) throws IOException;

    /** The bytes still available to this JVM on the file system holding {@code path}. */
    long usableSpace(Path path) throws IOException;
}
