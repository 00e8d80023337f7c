package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store holding over ten times the JVM's heap opens and serves: tables are read through mappings. */
@Tag("slow")
class HeapIndependenceTest {
    private static final int HEAP_MIB = 24;

    @TempDir
    Path dir;

    @Test
    void storeTenTimesLargerThanTheHeapWritesReopensAndServes() throws Exception {
        long target = 11L * HEAP_MIB << 20;
        Path out = dir.resolve("child.out");
        Path store = dir.resolve("store");
        Process child = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + HEAP_MIB + "m", "-XX:MaxDirectMemorySize=" + HEAP_MIB + "m",
                "-cp", System.getProperty("java.class.path"),
                LargeStoreChild.class.getName(), store.toString(), Long.toString(target)))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean finished = child.waitFor(4, TimeUnit.MINUTES);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(finished, "child did not finish; output:\n" + output);
        assertEquals(0, child.exitValue(), "child failed; output:\n" + output);
        long stored = directorySize(store);
        assertTrue(stored > 10L * (HEAP_MIB << 20), "store holds only " + stored + " bytes");
    }

    private static long directorySize(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
