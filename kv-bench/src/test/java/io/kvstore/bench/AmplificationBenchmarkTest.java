package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Tag("slow")
class AmplificationBenchmarkTest {
    @TempDir
    Path dir;

    private String previousBenchDir;

    @BeforeEach
    void useTemporaryStores() {
        previousBenchDir = System.setProperty("kv.bench.dir", dir.toString());
    }

    @AfterEach
    void restore() {
        if (previousBenchDir == null) {
            System.clearProperty("kv.bench.dir");
        } else {
            System.setProperty("kv.bench.dir", previousBenchDir);
        }
    }

    @Test
    void measuresEveryEngineOnBothWorkloadsAndRemovesItsStores() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine command = new CommandLine(new AmplificationBenchmark()).setOut(new PrintWriter(out));
        int exit = command.execute("--writes", "20000", "--update-keys", "2000", "--memtable-bytes", "65536",
                "--level-base-bytes", "262144", "--target-table-bytes", "65536", "--idle-compaction-millis", "50");
        assertEquals(0, exit, out.toString());
        String[] lines = out.toString().split("\n");
        int table = List.of(lines).indexOf("") + 1;
        assertTrue(lines[table].startsWith("| workload | engine |"), out.toString());
        List<String> rows = List.of(lines).subList(table + 2, lines.length);
        assertEquals(6, rows.size(), out.toString());
        for (String row : rows) {
            String[] cells = row.split("\\|");
            double writeAmplification = Double.parseDouble(cells[5].trim());
            double spaceOverCompacted = Double.parseDouble(cells[10].trim());
            // Every byte written reaches a table at least once; a store holds at least its compacted size.
            assertTrue(writeAmplification >= 0.9, row);
            assertTrue(spaceOverCompacted >= 0.99, row);
        }
        assertTrue(rows.get(0).startsWith("| inserts | LSM tiered |"), rows.get(0));
        assertTrue(rows.get(5).startsWith("| updates | RocksDB |"), rows.get(5));
        try (var left = Files.list(dir)) {
            assertEquals(0, left.count(), "the stores are deleted");
        }
    }

    @Test
    void refusesAnUnknownEngine() {
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new AmplificationBenchmark()).setErr(new PrintWriter(err))
                .execute("--engines", "leveled,cassandra");
        assertEquals(2, exit);
        assertTrue(err.toString().contains("unknown engine 'cassandra'"), err.toString());
    }
}
