package io.kvstore.bench.partitioners;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.internal.membership.KeyMovement;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Counts, per partitioner and replication factor, the copies of keys a join, a decommission and a
 * removal stream under the server's movement rules ({@link KeyMovement}) against the ideal: one copy
 * for each node that becomes a replica of a key it was not. Exact from the placements, so no
 * machine's noise; prints a Markdown table.
 *
 * <pre>
 * ./mvnw -q -pl kv-bench -am package -DskipTests
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.partitioners.ChangeStreaming
 * </pre>
 */
public final class ChangeStreaming {
    private static final List<String> PARTITIONERS = List.of("ring", "rendezvous", "jump", "modn", "maglev");
    private static final int VIRTUAL_NODES = 16;

    /** One change's count: copies streamed, the ideal, and the keys that gain a replica. */
    record Count(long streamed, long ideal, long keysMoving) {
    }

    /** Prints the table {@code args} describe; {@code --help} lists the options. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Command()).execute(args));
    }

    @CommandLine.Command(name = "ChangeStreaming", showDefaultValues = true, usageHelpWidth = 110,
            description = {"Copies streamed per membership change against the ideal, per partitioner and RF.", ""})
    private static final class Command implements Callable<Integer> {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
        private boolean help;

        @Option(names = "--keys", description = "random 16-byte keys placed", defaultValue = "200000")
        private int keys;

        @Option(names = "--nodes", description = "nodes before a join, decommission or removal", defaultValue = "5")
        private int nodes;

        @Option(names = "--seed", description = "seed of the keys", defaultValue = "1")
        private long seed;

        @Override
        public Integer call() {
            byte[][] sample = keys(keys, seed);
            System.out.println("| partitioner | RF | change | copies streamed / ideal | keys gaining a replica |");
            System.out.println("|---|---|---|---|---|");
            for (String partitioner : PARTITIONERS) {
                for (int replicationFactor : new int[] {2, 3}) {
                    List<String> urls = new ArrayList<>();
                    for (int i = 0; i < nodes; i++) {
                        urls.add("http://10.0.0." + (i + 1) + ":8080");
                    }
                    ClusterMap map = ClusterMap.seed(urls, replicationFactor, partitioner, VIRTUAL_NODES);
                    String middle = urls.get(nodes / 2);
                    String newcomer = "http://10.0.0." + (nodes + 1) + ":8080";
                    ClusterMap joining = map.withJoining(newcomer);
                    ClusterMap leaving = map.withState(middle, NodeState.LEAVING);
                    row(partitioner, replicationFactor, "join", count(KeyMovement.join(1, joining, newcomer), sample));
                    row(partitioner, replicationFactor, "decommission",
                            count(KeyMovement.decommission(1, leaving, middle), sample));
                    row(partitioner, replicationFactor, "removal",
                            count(KeyMovement.removal(1, leaving, leaving.without(middle)), sample));
                }
            }
            return 0;
        }

        private void row(String partitioner, int replicationFactor, String change, Count count) {
            System.out.printf(Locale.ROOT, "| %s | %d | %s | %,d / %,d = %.2f | %.1f%% |%n", partitioner, replicationFactor,
                    change, count.streamed(), count.ideal(), (double) count.streamed() / count.ideal(),
                    100.0 * count.keysMoving() / keys);
        }
    }

    static byte[][] keys(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] keys = new byte[count][16];
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        return keys;
    }

    /** What {@code movement} streams of {@code keys}, and what it would ideally. */
    static Count count(KeyMovement movement, byte[][] keys) {
        Partitioner before = movement.before().placement();
        Partitioner after = movement.after().placement();
        int beforeCount = movement.before().replicationFactor();
        int afterCount = movement.after().replicationFactor();
        List<Integer> senders = new ArrayList<>();
        for (String sender : movement.senders()) {
            senders.add(movement.indexOf(sender));
        }
        int[] out = new int[afterCount];
        int[] scratchB = new int[beforeCount];
        int[] scratchA = new int[afterCount];
        long streamed = 0;
        long ideal = 0;
        long moving = 0;
        for (byte[] key : keys) {
            for (int sender : senders) {
                streamed += movement.targets(key, sender, out, scratchB, scratchA);
            }
            int[] was = before.replicas(key, beforeCount);
            int[] will = after.replicas(key, afterCount);
            int gained = 0;
            for (int node : will) {
                boolean held = false;
                for (int old : was) {
                    held |= before.nodes().get(old).equals(after.nodes().get(node));
                }
                gained += held ? 0 : 1;
            }
            ideal += gained;
            moving += gained > 0 ? 1 : 0;
        }
        return new Count(streamed, ideal, moving);
    }
}
