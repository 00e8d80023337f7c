package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvctl cluster}: the cluster map the node holds ({@code GET /v0/cluster}). */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Prints the cluster map the node holds: epoch, replication factor, partitioner, nodes and their states.",
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl cluster", "  kvctl --node http://10.0.0.2:8080 cluster --json | jq .epoch"})
final class ClusterCommand extends KvctlCommand {
    @Option(names = "--json", description = "Print the map as the node answered it.")
    boolean json;

    @Override
    public Integer call() {
        String node = node();
        Answer answer = http().send(node, "GET", "/v0/cluster").expect(200);
        if (json) {
            printRaw(answer.body());
            return Kvctl.OK;
        }
        JsonObject map = answer.json();
        out().printf("epoch %d, replication factor %d, partitioner %s, %d virtual nodes, ring tokens %s%n",
                map.getLong("epoch"), map.getInteger("replicationFactor"), map.getString("partitioner"),
                map.getInteger("virtualNodes"), map.getJsonArray("nodes").getJsonObject(0).containsKey("tokens")
                        ? "allocated" : "random");
        JsonObject metadata = map.getJsonObject("metadata");
        JsonArray group = metadata == null ? new JsonArray() : metadata.getJsonArray("group", new JsonArray());
        Table nodes = new Table("NODE", "STATE", "TOKENS", "METADATA GROUP");
        JsonArray members = map.getJsonArray("nodes");
        for (int i = 0; i < members.size(); i++) {
            JsonObject member = members.getJsonObject(i);
            JsonArray tokens = member.getJsonArray("tokens");
            nodes.row(member.getString("url"), member.getString("state"), tokens == null ? "-" : tokens.size(),
                    group.contains(member.getString("url")) ? "yes" : "");
        }
        nodes.print(out());
        ChangeLine.print(out(), map);
        return Kvctl.OK;
    }
}
