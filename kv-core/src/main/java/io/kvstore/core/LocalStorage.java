package io.kvstore.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** {@link Storage#local()}: each call goes straight to {@code java.nio}. */
final class LocalStorage implements Storage {
    static final LocalStorage INSTANCE = new LocalStorage();

    private LocalStorage() {
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        return FileChannel.open(file, options);
    }

    @Override
    public void syncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public boolean delete(Path file) throws IOException {
        return Files.deleteIfExists(file);
    }

    @Override
    public List<Path> list(Path directory) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path entry : stream) {
                entries.add(entry);
            }
        }
        return entries;
    }

    @Override
    public boolean exists(Path file) {
        return Files.exists(file);
    }

    @Override
    public long size(Path file) throws IOException {
        return Files.size(file);
    }

    @Override
    public void createDirectories(Path directory) throws IOException {
        Files.createDirectories(directory);
    }

    @Override
    public long usableSpace(Path path) throws IOException {
        return Files.getFileStore(path).getUsableSpace();
    }

    @Override
    public String toString() {
        return "Storage.local()";
    }
}
