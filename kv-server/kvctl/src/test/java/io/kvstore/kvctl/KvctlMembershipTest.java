package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Membership changes followed to their end, and a cluster with a node down. */
@Tag("slow")
class KvctlMembershipTest {
    @TempDir
    Path dir;

    @Test
    void aDecommissionIsFollowedWithItsProgressToTheEnd() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, 2)) {
            nodes.fill("d", 300, "value-");
            Run decommission = Run.kvctl("decommission", "--node", nodes.url(2), "--poll-ms", "50");
            assertEquals(0, decommission.exitCode, decommission.toString());
            assertTrue(decommission.err.contains("following it"), decommission.err);
            assertTrue(decommission.err.lines().anyMatch(line -> line.matches("\\[[#-]{30}] \\d+/\\d+ streams, (\\d+\\.\\d% of keys read, )?\\d+ entries \\([^)]+\\), .*")),
                    "progress lines: " + decommission.err);
            assertTrue(decommission.out.startsWith("decommission of " + nodes.url(2) + " (change "), decommission.out);
            assertTrue(decommission.out.contains(" done: "), decommission.out);

            Run cluster = Run.kvctl("cluster", "--json", "--node", nodes.url(0));
            assertEquals(2, new JsonObject(cluster.out).getJsonArray("nodes").size(), cluster.out);
            Run changes = Run.kvctl("changes", "--node", nodes.url(1));
            assertTrue(changes.out.lines().anyMatch(line -> line.contains("decommission") && line.contains(nodes.url(2))
                    && line.contains(" done ")), changes.out);
            Run again = Run.kvctl("decommission", "--node", nodes.url(1));
            assertEquals(Kvctl.REFUSED, again.exitCode, "2 owners left with RF 2: " + again);
            assertTrue(again.err.contains("409"), again.err);
            for (int i = 0; i < 300; i += 37) {
                assertEquals("value-" + i, Run.kvctl("get", "--node", nodes.url(1), "d" + i).stdoutText());
            }
        }
    }

    @Test
    void aChangeStartedWithoutWaitingIsFollowedByIdAndItsCancelEndsTheFollowWithTheReason() throws Exception {
        // Streams paced at 8 KiB/s: the decommission is still streaming when it is cancelled.
        try (Nodes nodes = new Nodes(dir, 3, 2, config -> config.streamBytesPerSecond(8 << 10))) {
            nodes.fill("c", 400, "v".repeat(500));
            Run started = Run.kvctl("decommission", "--node", nodes.url(2), "--no-wait");
            assertEquals(0, started.exitCode, started.toString());
            long id = Long.parseLong(started.out.strip());
            CompletableFuture<Run> following = CompletableFuture.supplyAsync(
                    () -> nodes.kvctl("changes", "--follow", Long.toString(id), "--poll-ms", "50"));

            Run cancel = nodes.kvctl("cancel", Long.toString(id));
            assertEquals(0, cancel.exitCode, cancel.toString());
            Run followed = following.get(60, TimeUnit.SECONDS);
            assertEquals(Kvctl.REFUSED, followed.exitCode, followed.toString());
            assertTrue(followed.err.contains("decommission of " + nodes.url(2) + " (change " + id + ") cancelled: "),
                    followed.err);
            Run again = nodes.kvctl("cancel", Long.toString(id));
            assertEquals(Kvctl.REFUSED, again.exitCode, "over: " + again);
            assertTrue(again.err.contains("409"), again.err);
        }
    }

    @Test
    void aStoppedNodeIsShownDownWithAWarningThenRemoved() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, 2, config -> config.partitioner("maglev"))) {
            nodes.stop(2);
            Run status = nodes.kvctl("status");
            assertEquals(0, status.exitCode, status.toString());
            assertTrue(status.out.contains("3 nodes, 2 answering"), status.out);
            assertTrue(status.out.lines().anyMatch(line -> line.startsWith(nodes.url(2)) && line.contains(" DOWN (drained) ")),
                    "stopped, it told its peers first: " + status.out);
            assertTrue(status.err.startsWith("warning: " + nodes.url(2) + " is DOWN: cannot reach " + nodes.url(2)), status.err);
            JsonObject json = new JsonObject(nodes.kvctl("status", "--json").out);
            assertEquals(null, json.getJsonArray("nodes").getJsonObject(2).getJsonObject("status"));

            Run ring = nodes.kvctl("ring", "--sample", "20000");
            assertTrue(ring.out.contains("partitioner maglev") && ring.out.contains("shares from 20000 sampled keys"), ring.out);

            Run down = Run.kvctl("status", "--node", nodes.url(2));
            assertEquals(Kvctl.UNREACHABLE, down.exitCode, down.toString());
            assertTrue(down.err.contains("cannot reach " + nodes.url(2)), down.err);

            Run remove = nodes.kvctl("remove", "--url", nodes.url(2), "--poll-ms", "50");
            assertEquals(0, remove.exitCode, remove.toString());
            assertTrue(remove.out.startsWith("remove of " + nodes.url(2)), remove.out);
            Run after = nodes.kvctl("status");
            assertTrue(after.out.contains("2 nodes, 2 answering"), after.out);
            Run unknown = nodes.kvctl("remove", "--url", nodes.url(2));
            assertEquals(Kvctl.REFUSED, unknown.exitCode, unknown.toString());
            assertTrue(unknown.err.contains("404"), unknown.err);
        }
    }
}
