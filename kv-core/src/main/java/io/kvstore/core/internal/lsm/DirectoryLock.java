package io.kvstore.core.internal.lsm;

import io.kvstore.core.Storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** An exclusive lock on a store directory, so two open stores never share (and corrupt) its files. */
final class DirectoryLock implements Closeable {
    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static DirectoryLock acquire(Storage storage, Path dir) throws IOException {
        Path file = dir.resolve(FileNames.LOCK);
        FileChannel channel = storage.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            channel.close();
            throw new IOException("store directory " + dir + " is already open in this JVM", e);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IOException("store directory " + dir + " is already open by another process (lock " + file + ")");
        }
        return new DirectoryLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
