package io.kvstore.bench;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where benchmark stores live: {@code -Dkv.bench.dir} if set, else {@code dao-bench/} next to the
 * benchmarks jar (that is, under {@code kv-bench/target/}, so {@code mvn clean} removes them).
 */
final class BenchDirectories {
    private BenchDirectories() {
    }

    static Path root() throws IOException {
        String configured = System.getProperty("kv.bench.dir");
        Path root;
        if (configured != null) {
            root = Path.of(configured);
        } else {
            try {
                Path code = Path.of(DaoBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                root = code.getParent().resolve("dao-bench");
            } catch (URISyntaxException | RuntimeException e) {
                root = Path.of("target", "dao-bench");
            }
        }
        Files.createDirectories(root);
        return root.toAbsolutePath();
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
