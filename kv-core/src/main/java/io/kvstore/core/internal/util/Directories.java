package io.kvstore.core.internal.util;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** File-system helpers shared by the store's writers. */
public final class Directories {
    private Directories() {
    }

    /**
     * Forces a directory's entries (creations, renames, deletions) to the device: fsyncing a new file
     * makes its contents durable, but its name only once the directory is forced too (POSIX).
     */
    public static void sync(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
