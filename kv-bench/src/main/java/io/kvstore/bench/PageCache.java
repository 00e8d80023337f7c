package io.kvstore.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Sets the kernel's page cache before a read phase: empty, so that the next reads of a store come from
 * the device, or holding the whole store, so that they come from memory whatever the store's size.
 * Holding it takes one of two ways: read once, which a kernel that reclaims idle page cache undoes
 * within minutes, or mapped and kept mapped, which such a reclaimer leaves where it only takes pages no
 * process maps (DAMON's {@code pageout} scheme with an {@code unmapped} filter).
 */
final class PageCache {
    private static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");
    /** The largest mapping {@link #map} makes: a Java mapping holds at most 2 GiB. */
    private static final long MAX_MAPPING = 1L << 30;

    private PageCache() {
    }

    /**
     * Writes dirty pages back ({@code sync}), then asks the kernel to drop clean pages, dentries and
     * inodes. Returns {@code "dropped"}, or why not (writing {@code /proc/sys/vm/drop_caches} needs
     * root outside a read-only container); never throws for a refusal.
     */
    static String drop() throws InterruptedException {
        try {
            int sync = sync();
            if (sync != 0) {
                return "not dropped: sync exited with " + sync;
            }
            Files.writeString(DROP_CACHES, "3");
            return "dropped";
        } catch (IOException e) {
            return "not dropped: cannot write " + DROP_CACHES + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); run as root on a host that allows it";
        }
    }

    /**
     * Writes dirty pages back ({@code sync}), then reads every file under {@code directory} once from
     * start to end, so that the page cache holds the store (if memory does) and no write-back runs
     * under the reads that follow. Returns {@code "warmed"} and the bytes read.
     */
    static String warm(Path directory) throws IOException, InterruptedException {
        int sync = sync();
        if (sync != 0) {
            return "not warmed: sync exited with " + sync;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        long bytes = 0;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                for (int read = channel.read(buffer); read >= 0; read = channel.read(buffer)) {
                    bytes += read;
                    buffer.clear();
                }
            }
        }
        return String.format(Locale.ROOT, "warmed (%.0f MiB read)", bytes / 1048576.0);
    }

    /**
     * Writes dirty pages back ({@code sync}), then maps every file under {@code directory} and loads each
     * mapping, so that every page of the store is in memory and mapped into this process for as long as
     * the returned {@link Mapped} is reachable.
     */
    static Mapped map(Path directory) throws IOException, InterruptedException {
        int sync = sync();
        if (sync != 0) {
            return new Mapped("not mapped: sync exited with " + sync, List.of());
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        List<MappedByteBuffer> mappings = new ArrayList<>();
        long bytes = 0;
        for (Path file : files) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = channel.size();
                for (long at = 0; at < size; at += MAX_MAPPING) {
                    MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, at,
                            Math.min(MAX_MAPPING, size - at));
                    mapping.load();
                    mappings.add(mapping);
                }
                bytes += size;
            }
        }
        return new Mapped(String.format(Locale.ROOT, "mapped (%.0f MiB loaded)", bytes / 1048576.0), mappings);
    }

    /**
     * The mappings {@link #map} made and what it did; they stay mapped while this is reachable (the JVM
     * unmaps a mapping once its buffer is collected).
     */
    record Mapped(String state, List<MappedByteBuffer> mappings) {
    }

    /** Runs {@code sync}, writing every dirty page back; returns its exit status. */
    private static int sync() throws IOException, InterruptedException {
        return new ProcessBuilder("sync").inheritIO().start().waitFor();
    }
}
