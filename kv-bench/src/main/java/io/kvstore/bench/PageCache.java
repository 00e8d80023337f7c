package io.kvstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Empties the kernel's page cache, so that the next reads of a store come from the device. */
final class PageCache {
    private static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");

    private PageCache() {
    }

    /**
     * Writes dirty pages back ({@code sync}), then asks the kernel to drop clean pages, dentries and
     * inodes. Returns {@code "dropped"}, or why not (writing {@code /proc/sys/vm/drop_caches} needs
     * root outside a read-only container); never throws for a refusal.
     */
    static String drop() throws InterruptedException {
        try {
            Process sync = new ProcessBuilder("sync").inheritIO().start();
            if (sync.waitFor() != 0) {
                return "not dropped: sync exited with " + sync.exitValue();
            }
            Files.writeString(DROP_CACHES, "3");
            return "dropped";
        } catch (IOException e) {
            return "not dropped: cannot write " + DROP_CACHES + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); run as root on a host that allows it";
        }
    }
}
