package io.kvstore.core.lsm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** An exclusive lock on a store directory (the {@code LOCK} file), held while the store is open. */
final class StoreLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private StoreLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static StoreLock acquire(Path dir) throws IOException {
        Path file = dir.resolve("LOCK");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by another store in this JVM
        }
        if (lock == null) {
            channel.close();
            throw new IOException("store directory " + dir + " is already open (locked by " + file
                    + "); close the other store first");
        }
        return new StoreLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
