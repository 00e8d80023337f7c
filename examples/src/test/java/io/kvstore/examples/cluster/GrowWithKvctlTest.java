package io.kvstore.examples.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Slow: five kvctl processes, each a JVM start, around a join of a real node. */
@Tag("slow")
class GrowWithKvctlTest {
    @Test
    void kvctlShowsThreeNodesThenFollowsTheJoinThenShowsFour(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GrowWithKvctl.run(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        int joined = out.indexOf("with join ");
        assertTrue(joined > 0, out);
        String before = out.substring(0, joined);
        String after = out.substring(joined);
        assertTrue(before.contains("$ kvctl --node ") && before.contains(" status\n"), out);
        assertTrue(before.matches("(?s).*epoch \\d+, replication factor 3, partitioner ring, 3 nodes, 3 answering\n.*"), out);
        assertTrue(after.contains(" changes --follow "), out);
        assertTrue(after.lines().anyMatch(line -> line.startsWith("join of http://127.0.0.1:") && line.contains(" done")),
                "the follow ends with the join done:\n" + out);
        assertTrue(after.matches("(?s).*epoch \\d+, replication factor 3, partitioner ring, 4 nodes, 4 answering\n.*"), out);
        assertTrue(after.contains("partitioner ring, replication factor 3, epoch "), "kvctl ring ran:\n" + out);
        assertTrue(out.endsWith("four nodes hold 300 keys\n"), "no key lost in the join:\n" + out);
    }
}
