package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code repair} and {@code cleanup} follow the run the node reports, drawing its progress on stderr,
 * and end with the node's summary, or exit 1 with the reason of a run that failed.
 */
@Tag("slow")
class KvctlProgressTest {
    @TempDir
    Path dir;

    @Test
    void repairAndCleanupDrawTheirProgressAndEndWithTheSummary() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, 2)) {
            nodes.fill("p", 30, "value-");
            Run repair = nodes.kvctl("repair", "--poll-ms", "10");
            assertEquals(0, repair.exitCode, repair.toString());
            assertTrue(repair.out.startsWith("repair of " + nodes.url(0) + " with 2 peers done"), repair.out);
            assertTrue(repair.err.lines().anyMatch(line -> line.startsWith("[" + "#".repeat(30) + "] 2/2 exchanges, ")
                    && line.contains(" keys in trees, ")), "the last bar, both exchanges done:\n" + repair.err);

            Run cleanup = nodes.kvctl("cleanup", "--poll-ms", "10");
            assertEquals(0, cleanup.exitCode, cleanup.toString());
            assertTrue(cleanup.out.startsWith("cleanup of " + nodes.url(0) + " at epoch "), cleanup.out);
            assertTrue(cleanup.err.contains("] 1/1 rewrite, "), cleanup.err);

            Run json = nodes.kvctl("cleanup", "--json");
            assertEquals(0, json.exitCode, json.toString());
            assertEquals(nodes.url(0), new JsonObject(json.out).getString("node"), "the summary, as the waiting POST answers it");
        }
    }

    @Test
    void aRepairThatFailsExitsOneWithThePeerAndItsReason() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, 2)) {
            nodes.fill("p", 30, "value-");
            nodes.stop(2);
            Run repair = nodes.kvctl("repair", "--poll-ms", "10");
            assertEquals(Kvctl.REFUSED, repair.exitCode, repair.toString());
            assertTrue(repair.err.contains("] 2/2 exchanges, "), "the other exchange ran: " + repair.err);
            String last = repair.err.lines().reduce((first, second) -> second).orElse("");
            assertTrue(last.startsWith("kvctl repair: repair ") && last.contains(" on " + nodes.url(0) + " failed: could not repair with "
                    + nodes.url(2) + ": " + nodes.url(2) + ": "), last);
            assertEquals("", repair.out);

            Run json = nodes.kvctl("repair", "--json");
            assertEquals(Kvctl.REFUSED, json.exitCode, json.toString());
            assertTrue(new JsonObject(json.out).getJsonObject("failedPeers").containsKey(nodes.url(2)), json.out);
        }
    }

    @Test
    void theBarEstimatesTheTimeLeftFromThePartsDone() {
        JsonObject running = new JsonObject().put("operation", "repair").put("status", "running").put("parts", 3)
                .put("partsDone", 1).put("keysScanned", 2000).put("keysDone", 10).put("bytesDone", 2048);
        assertEquals("[##########--------------------] 1/3 exchanges, 2000 keys in trees, 10 copied (2.0 KiB), 0:10 elapsed,"
                + " ETA 0:20", OperationBar.render(running, Duration.ofSeconds(10)));
        JsonObject cleanup = new JsonObject().put("operation", "cleanup").put("status", "running").put("parts", 1)
                .put("partsDone", 0).put("keysScanned", 500).put("keysDone", 20).put("bytesDone", 0).put("bytesTotal", 1 << 20);
        assertEquals("[------------------------------] 0/1 rewrite, 500 keys examined, 20 removed, 1.0 MiB of tables,"
                + " 0:03 elapsed, ETA --", OperationBar.render(cleanup, Duration.ofSeconds(3)));
    }

    @Test
    void aCleanupWithAnEstimateOfItsKeysFillsItsBarByThem() {
        JsonObject cleanup = new JsonObject().put("operation", "cleanup").put("status", "running").put("parts", 1)
                .put("partsDone", 0).put("keysScanned", 500).put("keysDone", 20).put("bytesDone", 0).put("bytesTotal", 1 << 20)
                .put("keysTotal", 2000);
        assertEquals("[#######-----------------------] 0/1 rewrite, 500 keys examined, 20 removed, 1.0 MiB of tables,"
                + " 0:03 elapsed, ETA 0:09", OperationBar.render(cleanup, Duration.ofSeconds(3)));
        JsonObject done = cleanup.copy().put("partsDone", 1).put("keysScanned", 1800);
        assertTrue(OperationBar.render(done, Duration.ofSeconds(9)).startsWith("[" + "#".repeat(30) + "] 1/1 rewrite"),
                "a finished rewrite fills the bar whatever the estimate");
    }
}
