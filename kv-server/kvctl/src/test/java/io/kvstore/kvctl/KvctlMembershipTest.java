package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
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
            nodes.fill("d", 300);
            Run decommission = Run.kvctl("decommission", "--node", nodes.url(2), "--poll-ms", "50");
            assertEquals(0, decommission.exitCode, decommission.toString());
            assertTrue(decommission.err.contains("following it"), decommission.err);
            assertTrue(decommission.err.lines().anyMatch(line -> line.matches("\\[[#-]{30}] \\d+/\\d+ streams, \\d+ entries, .*")),
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
    void aStoppedNodeIsShownDownWithAWarningThenRemoved() throws Exception {
        try (Nodes nodes = new Nodes(dir, 3, 2, config -> config.partitioner("maglev"))) {
            nodes.stop(2);
            Map<String, String> env = Map.of("KVCTL_NODE", nodes.url(0));
            Run status = Run.with(env, new byte[0], "status");
            assertEquals(0, status.exitCode, status.toString());
            assertTrue(status.out.contains("3 nodes, 2 answering"), status.out);
            assertTrue(status.out.lines().anyMatch(line -> line.startsWith(nodes.url(2)) && line.contains(" DOWN ")), status.out);
            assertTrue(status.err.startsWith("warning: " + nodes.url(2) + " is DOWN: cannot reach " + nodes.url(2)), status.err);
            JsonObject json = new JsonObject(Run.with(env, new byte[0], "status", "--json").out);
            assertEquals(null, json.getJsonArray("nodes").getJsonObject(2).getJsonObject("status"));

            Run ring = Run.with(env, new byte[0], "ring", "--sample", "20000");
            assertTrue(ring.out.contains("partitioner maglev") && ring.out.contains("shares from 20000 sampled keys"), ring.out);

            Run down = Run.kvctl("status", "--node", nodes.url(2));
            assertEquals(Kvctl.UNREACHABLE, down.exitCode, down.toString());
            assertTrue(down.err.contains("cannot reach " + nodes.url(2)), down.err);

            Run remove = Run.with(env, new byte[0], "remove", "--url", nodes.url(2), "--poll-ms", "50");
            assertEquals(0, remove.exitCode, remove.toString());
            assertTrue(remove.out.startsWith("remove of " + nodes.url(2)), remove.out);
            Run after = Run.with(env, new byte[0], "status");
            assertTrue(after.out.contains("2 nodes, 2 answering"), after.out);
            Run unknown = Run.with(env, new byte[0], "remove", "--url", nodes.url(2));
            assertEquals(Kvctl.REFUSED, unknown.exitCode, unknown.toString());
            assertTrue(unknown.err.contains("404"), unknown.err);
        }
    }
}
