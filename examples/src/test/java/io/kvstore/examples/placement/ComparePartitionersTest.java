package io.kvstore.examples.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.examples.placement.ComparePartitioners.Row;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ComparePartitionersTest {
    private static final int KEYS = 100_000;

    @Test
    void consistentPartitionersMoveAboutASixthAndModNMostKeys() {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<Row> rows = ComparePartitioners.run(KEYS, new PrintStream(text, true, StandardCharsets.UTF_8));
        String out = text.toString(StandardCharsets.UTF_8);

        assertEquals(Partitioners.names(), rows.stream().map(Row::name).collect(Collectors.toList()));
        for (String name : Partitioners.names()) {
            assertTrue(out.lines().anyMatch(line -> line.startsWith(name + " ")), "no row for " + name + ":\n" + out);
        }
        Map<String, Row> byName = rows.stream().collect(Collectors.toMap(Row::name, Function.identity()));
        for (Row row : rows) {
            assertEquals(KEYS, Arrays.stream(row.load()).sum(), row.name() + " placed every key once");
            assertTrue(row.maxOverMean() < 1.15, row.name() + " balance: " + row.maxOverMean() + "\n" + out);
        }
        double ideal = 1.0 / 6;
        for (String consistent : List.of("ring", "rendezvous", "jump", "maglev")) {
            double moved = byName.get(consistent).movedShare();
            // Maglev's table may move a few keys between old nodes too, hence the margin above the ideal.
            assertTrue(moved > ideal * 0.85 && moved < ideal * 1.3, consistent + " moved " + moved + "\n" + out);
        }
        assertTrue(byName.get("modn").movedShare() > 0.75, "hash mod N reshuffles almost everything:\n" + out);
    }
}
