package io.kvstore.kvctl;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvctl ring}: where the map's partitioner places keys, node by node. */
@Command(name = "ring", mixinStandardHelpOptions = true,
        description = {"Prints each owner's share of the keys: for the ring partitioner its token ranges (exact, from the"
                + " cluster map's tokens), for the others the placement of a sample of keys by the same partitioner"
                + " the nodes run."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl ring", "  kvctl ring --ranges        # every token range (start, end] of each node",
            "  kvctl ring --sample 1000000"})
final class RingCommand extends KvctlCommand {
    @Option(names = "--ranges", description = "List the token ranges (start exclusive, end inclusive) of each node (ring partitioner).")
    boolean ranges;

    @Option(names = "--sample", paramLabel = "KEYS", defaultValue = "100000",
            description = "Keys placed to measure the shares of partitioners without tokens (default: ${DEFAULT-VALUE}).")
    int sample;

    @Option(names = "--json", description = "Print the cluster map the shares are computed from, as the node answered it.")
    boolean json;

    @Override
    public Integer call() {
        if (sample < 1) {
            throw KvctlException.usage("--sample must be at least 1, got " + sample);
        }
        String node = node();
        Answer answer = http().send(node, "GET", "/v0/cluster").expect(200);
        if (json) {
            printRaw(answer.body());
            return Kvctl.OK;
        }
        ClusterMap map = ClusterMapCodec.fromJson(answer.body());
        KeyShares shares = KeyShares.of(map, sample);
        boolean ring = map.partitioner().equals("ring");
        out().printf("partitioner %s, replication factor %d, epoch %d; shares from %s%n", map.partitioner(),
                map.replicationFactor(), map.epoch(), shares.method());
        RingRanges tokens = ring ? RingRanges.of(map) : null;
        Table table = new Table("NODE", "STATE", "TOKENS", "FIRST REPLICA", "REPLICA OF");
        List<String> owners = shares.owners();
        for (int i = 0; i < owners.size(); i++) {
            table.row(owners.get(i), map.state(owners.get(i)).id(), ring ? tokens.ranges(i).size() : "-",
                    Units.percent(shares.primary()[i]), Units.percent(shares.replicas()[i]));
        }
        table.print(out());
        if (ranges && ring) {
            for (int i = 0; i < owners.size(); i++) {
                out().println(owners.get(i) + ":");
                for (long[] range : tokens.ranges(i)) {
                    out().println("  (" + range[0] + ", " + range[1] + "]");
                }
            }
        } else if (ranges) {
            out().println("the " + map.partitioner() + " partitioner has no token ranges");
        }
        out().flush();
        return Kvctl.OK;
    }
}
