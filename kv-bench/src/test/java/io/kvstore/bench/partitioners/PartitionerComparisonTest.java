package io.kvstore.bench.partitioners;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the comparison with small sizes so the example cannot rot. */
@Tag("slow")
class PartitionerComparisonTest {

    @Test
    void writesTheReportAndFourCharts(@TempDir Path dir) throws Exception {
        Path report = new PartitionerComparison(20_000, new int[] {3, 5, 10}, new int[] {1, 10, 100}, dir, 1L).run();
        String text = Files.readString(report);
        for (String name : Partitioners.names()) {
            assertTrue(text.contains("| " + name + " | 10 |"), "row for " + name + " missing:\n" + text);
        }
        assertTrue(text.contains("## Movement"), text);
        assertTrue(text.contains("| ring, allocated | 10 |"), text);
        assertTrue(text.contains("| worst of 3..10 |"), text);
        for (String png : new String[] {"load-per-node.png", "ring-vnodes.png", "ring-growth.png", "keys-moved.png"}) {
            byte[] bytes = Files.readAllBytes(dir.resolve(png));
            assertTrue(bytes.length > 1000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G', png + " is not a PNG");
        }
    }
}
