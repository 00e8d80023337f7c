package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.client.KvClient;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operation that outlasts the node's idle timeout: the node keeps the connection open with interim
 * {@code 103} answers, which kvctl's HTTP client passes over to the final one, and kvctl draws the
 * pass's progress from the node's status meanwhile.
 */
@Tag("slow")
class KvctlLongOperationTest {
    @TempDir
    Path dir;

    @Test
    void aScrubLongerThanTheIdleTimeoutIsWaitedForThroughTheNodesInterimAnswers() throws Exception {
        try (Nodes nodes = new Nodes(dir, 1, 1, config -> config
                .network(network -> network.idleTimeout(Duration.ofSeconds(2)))
                .store(store -> store.flushThresholdBytes(64 << 10)))) {
            byte[] value = new byte[1000];
            Random random = new Random(3);
            try (KvClient client = KvClient.connect(nodes.url(0))) {
                for (int i = 0; i < 300; i++) {
                    random.nextBytes(value);
                    client.blocking().put(("long" + i).getBytes(), value);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long tableBytes = 0;
            while (tableBytes < 250_000 && System.nanoTime() < deadline) {
                JsonObject status = new JsonObject(nodes.kvctl("status", "--json").out).getJsonArray("nodes").getJsonObject(0);
                tableBytes = status.getJsonObject("status").getLong("dataBytes");
                TimeUnit.MILLISECONDS.sleep(100);
            }
            assertTrue(tableBytes >= 250_000, "flushed: " + tableBytes);

            Run scrub = nodes.kvctl("scrub", "--bytes-per-s", "100000", "--json");
            assertEquals(0, scrub.exitCode, scrub.toString());
            JsonObject report = new JsonObject(scrub.out);
            assertTrue(report.getLong("durationMillis") > 2_000, "outlasted the idle timeout: " + report.encode());
            assertTrue(report.getBoolean("finished"), report.encode());
            assertTrue(scrub.err.lines().anyMatch(line -> line.startsWith("[") && line.contains(" tables, ")
                    && line.contains(" ETA ")), "the pass's progress, from the node's status: " + scrub.err);
        }
    }
}
