package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read commands and the operations that answer when done, against a real three-node cluster. */
@Tag("slow")
class KvctlClusterTest {
    @TempDir
    static Path dir;
    private static Nodes nodes;

    @BeforeAll
    static void start() throws Exception {
        nodes = new Nodes(dir, 3, 2);
        nodes.fill("k", 50, "value-");
    }

    @AfterAll
    static void stop() throws Exception {
        nodes.close();
    }

    @Test
    void statusShowsEveryNodeUpWithItsShareAndNoChange() {
        Run status = nodes.kvctl("status");
        assertEquals(0, status.exitCode, status.toString());
        assertTrue(status.out.contains("3 nodes, 3 answering"), status.out);
        for (String url : nodes.urls) {
            assertTrue(status.out.lines().anyMatch(line -> line.startsWith(url) && line.contains(" normal ") && line.contains(" up ")),
                    url + " in\n" + status.out);
        }
        assertTrue(status.out.contains("no change in progress"), status.out);
        assertEquals("", status.err);
    }

    @Test
    void statusJsonHoldsEachNodesOwnAnswers() {
        Run status = nodes.kvctl("status", "--json");
        assertEquals(0, status.exitCode, status.toString());
        JsonObject json = new JsonObject(status.out);
        assertEquals(3, json.getJsonObject("cluster").getJsonArray("nodes").size());
        JsonArray reports = json.getJsonArray("nodes");
        for (int i = 0; i < reports.size(); i++) {
            JsonObject report = reports.getJsonObject(i);
            assertEquals(report.getString("url"), report.getJsonObject("status").getString("node"));
            assertEquals(json.getJsonObject("cluster").getLong("epoch"), report.getJsonObject("cluster").getLong("epoch"));
        }
    }

    @Test
    void clusterAndRingShowTheMapAndSharesThatAddUp() {
        Run cluster = nodes.kvctl("cluster");
        assertEquals(0, cluster.exitCode, cluster.toString());
        assertTrue(cluster.out.contains("replication factor 2, partitioner ring"), cluster.out);
        assertEquals(3, new JsonObject(nodes.kvctl("cluster", "--json").out).getJsonArray("nodes").size());

        Run ring = nodes.kvctl("ring", "--ranges");
        assertEquals(0, ring.exitCode, ring.toString());
        assertTrue(ring.out.contains("shares from token ranges"), ring.out);
        double first = 0;
        double replicas = 0;
        for (String line : ring.out.lines().filter(line -> line.startsWith("http")).toList()) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length == 5) {
                assertEquals("16", cells[2], "allocated tokens per node: " + line);
                first += Double.parseDouble(cells[3].replace("%", ""));
                replicas += Double.parseDouble(cells[4].replace("%", ""));
            }
        }
        assertEquals(100, first, 0.2, ring.out);
        assertEquals(200, replicas, 0.2, "each key on 2 of 3 nodes: " + ring.out);
        assertEquals(48, ring.out.lines().filter(line -> line.startsWith("  (")).count(), "16 ranges per node");
        assertEquals(new JsonObject(nodes.kvctl("cluster", "--json").out), new JsonObject(nodes.kvctl("ring", "--json").out));
    }

    @Test
    void changesListsNoneAndCancellingAnUnknownChangeGivesTheNodesReason() {
        Run changes = nodes.kvctl("changes", "--json");
        assertEquals(0, changes.exitCode, changes.toString());
        assertEquals(0, new JsonObject(changes.out).getJsonArray("changes").size());
        assertTrue(nodes.kvctl("changes").out.contains("0 changes"));

        Run cancel = nodes.kvctl("cancel", "12345");
        assertEquals(Kvctl.REFUSED, cancel.exitCode, cancel.toString());
        assertTrue(cancel.err.contains("DELETE /v0/admin/changes/12345 on " + nodes.url(0) + ": 404"), cancel.err);
        Run notANumber = nodes.kvctl("cancel", "twelve");
        assertEquals(Kvctl.USAGE, notANumber.exitCode, notANumber.toString());
    }

    @Test
    void repairCleanupAndScrubAnswerWithTheirSummaries() {
        Run repair = nodes.kvctl("repair");
        assertEquals(0, repair.exitCode, repair.toString());
        assertTrue(repair.out.startsWith("repair of " + nodes.url(0) + " with 2 peers done"), repair.out);
        Run cleanup = nodes.kvctl("cleanup", "--json");
        assertEquals(0, cleanup.exitCode, cleanup.toString());
        assertEquals(nodes.url(0), new JsonObject(cleanup.out).getString("node"));
        Run scrub = nodes.kvctl("scrub", "--bytes-per-s", "0");
        assertEquals(0, scrub.exitCode, scrub.toString());
        assertTrue(scrub.out.contains("scrub done") && scrub.out.contains("0 quarantined"), scrub.out);
        Run negative = nodes.kvctl("scrub", "--bytes-per-s", "-1");
        assertEquals(Kvctl.USAGE, negative.exitCode, negative.toString());
    }
}
