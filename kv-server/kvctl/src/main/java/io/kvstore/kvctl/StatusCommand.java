package io.kvstore.kvctl;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvctl status}: every node of the map the node holds, asked at once for its {@code /v0/status}
 * and its {@code /v0/cluster}. A node that does not answer is shown DOWN and named in a warning on
 * stderr; the command still succeeds (exit 0), since it reported what it was asked. Only the node
 * kvctl is pointed at must answer (exit 3 otherwise).
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows every node of the cluster: its state in the map, whether it answers, the epoch of its map,"
                + " its share of the keys (as first replica), its data (tables and memtables) and free disk, the requests it serves, the hints other nodes keep"
                + " for it; and the change in progress.",
            "A node that does not answer is shown DOWN, with a warning on stderr; the exit code is still 0."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl status", "  KVCTL_NODE=https://10.0.0.1:8080 kvctl status --tls-ca ca.pem",
            "  kvctl status --json | jq '.nodes[] | select(.status == null) | .url'"})
final class StatusCommand extends KvctlCommand {
    @Option(names = "--json", description = "Print {\"cluster\": the map, \"nodes\": [{\"url\", \"status\", \"cluster\","
            + " \"error\"}]}: each node's answers as it gave them, null where it gave none.")
    boolean json;

    @Override
    public Integer call() {
        String node = node();
        NodeHttp http = http();
        Answer mapAnswer = http.send(node, "GET", "/v0/cluster").expect(200);
        JsonObject mapJson = mapAnswer.json();
        ClusterMap map = ClusterMapCodec.fromJson(mapAnswer.body());
        List<String> urls = map.urls();
        List<CompletableFuture<NodeReport>> pending = new ArrayList<>(urls.size());
        for (String url : urls) {
            pending.add(NodeReport.ask(http, url));
        }
        List<NodeReport> reports = new ArrayList<>(urls.size());
        for (CompletableFuture<NodeReport> report : pending) {
            reports.add(report.join());
        }
        if (json) {
            JsonArray nodes = new JsonArray();
            for (NodeReport report : reports) {
                nodes.add(report.toJson());
            }
            printRaw(new JsonObject().put("cluster", mapJson).put("nodes", nodes));
        } else {
            print(map, mapJson, reports);
        }
        warnDown(reports);
        return Kvctl.OK;
    }

    private void print(ClusterMap map, JsonObject mapJson, List<NodeReport> reports) {
        KeyShares shares = KeyShares.of(map, 100_000);
        long up = reports.stream().filter(NodeReport::answered).count();
        out().printf("epoch %d, replication factor %d, partitioner %s, %d nodes, %d answering%n", map.epoch(),
                map.replicationFactor(), map.partitioner(), reports.size(), up);
        Table table = new Table("NODE", "STATE", "UP", "EPOCH", "OWNS", "DATA", "DISK FREE", "IN FLIGHT", "HINTS FOR IT");
        for (NodeReport report : reports) {
            double owns = shares.primaryOf(report.url());
            JsonObject status = report.status();
            JsonObject disk = status == null ? null : status.getJsonObject("disk");
            table.row(report.url(), map.state(report.url()).id(),
                    upColumn(report, drainingSaysAPeer(report.url(), reports)),
                    report.cluster() == null ? "?" : report.cluster().getLong("epoch"),
                    owns < 0 ? "-" : Units.percent(owns),
                    status == null ? "?" : Units.bytes(status.getLong("dataBytes", 0L)
                            + status.getJsonObject("storage", new JsonObject()).getLong("memtableBytes", 0L)),
                    disk == null ? "?" : Units.bytes(disk.getLong("freeBytes", -1L))
                            + (disk.getBoolean("writesRefused", false) ? " (writes refused)" : ""),
                    status == null ? "?" : status.getLong("requestsInFlight", -1L),
                    hintsFor(report.url(), reports));
        }
        table.print(out());
        String change = null;
        for (NodeReport report : reports) {
            if (report.cluster() != null && change == null) {
                change = ChangeLine.of(report.cluster());
            }
        }
        if (change == null) {
            change = ChangeLine.of(mapJson);
        }
        out().println(change == null ? "no change in progress" : change);
        out().flush();
    }

    /**
     * {@code up}, {@code DOWN}, or for a node its peers hold as draining (it said it is stopping)
     * {@code draining} while it still answers and {@code DOWN (drained)} once it is gone.
     */
    private static String upColumn(NodeReport report, boolean draining) {
        if (report.answered()) {
            return draining ? "draining" : "up";
        }
        return draining ? "DOWN (drained)" : "DOWN";
    }

    /** Whether an answering node holds {@code url} as draining: it said it is stopping, and is not back yet. */
    private static boolean drainingSaysAPeer(String url, List<NodeReport> reports) {
        return viewsOf(url, reports).stream().anyMatch(peer -> "draining".equals(peer.getString("state")));
    }

    /** The hints the answering nodes keep for {@code url}: writes it missed, to be replayed to it. */
    private static String hintsFor(String url, List<NodeReport> reports) {
        return Long.toString(viewsOf(url, reports).stream().mapToLong(peer -> peer.getLong("hintsPending", 0L)).sum());
    }

    /** How each answering node sees {@code url}: its entry among that node's {@code peers}. */
    private static List<JsonObject> viewsOf(String url, List<NodeReport> reports) {
        List<JsonObject> views = new ArrayList<>();
        for (NodeReport report : reports) {
            JsonArray peers = report.status() == null ? null : report.status().getJsonArray("peers");
            for (int i = 0; peers != null && i < peers.size(); i++) {
                if (url.equals(peers.getJsonObject(i).getString("url"))) {
                    views.add(peers.getJsonObject(i));
                }
            }
        }
        return views;
    }

    private void warnDown(List<NodeReport> reports) {
        for (NodeReport report : reports) {
            if (!report.answered()) {
                err().println("warning: " + report.url() + " is DOWN: " + report.error());
            }
        }
        err().flush();
    }
}
