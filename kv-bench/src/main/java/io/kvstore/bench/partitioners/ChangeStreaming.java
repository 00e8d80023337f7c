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
 * Counts, per partitioner, replication factor and cluster size, the copies of keys a join, a
 * decommission and a removal stream under the server's plan ({@link KeyMovement}: each loser of a key
 * paired with one gainer; every live replica of a key a dead node held sends it to every gainer),
 * under the rule it replaced (every loser, or every live replica after a removal, sent each key to
 * every gainer), and the ideal: one copy for each node that becomes a replica of a key it was not.
 * Exact from the placements, so no machine's noise; prints a Markdown table.
 *
 * <pre>
 * ./mvnw -q -pl kv-bench -am package -DskipTests
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.partitioners.ChangeStreaming --nodes 5,10,20
 * </pre>
 */
public final class ChangeStreaming {
    private static final List<String> PARTITIONERS = List.of("ring", "rendezvous", "jump", "modn", "maglev");
    private static final int VIRTUAL_NODES = 16;

    /**
     * One change's count: copies streamed now and under the replaced rule, the ideal, and the keys that
     * gain a replica.
     */
    record Count(long streamed, long replacedRule, long ideal, long keysMoving) {
    }

    /** Prints the table {@code args} describe; {@code --help} lists the options. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Command()).execute(args));
    }

    @CommandLine.Command(name = "ChangeStreaming", showDefaultValues = true, usageHelpWidth = 110,
            description = {"Copies streamed per membership change against the ideal, per partitioner, RF and size.", ""})
    private static final class Command implements Callable<Integer> {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
        private boolean help;

        @Option(names = "--keys", description = "random 16-byte keys placed", defaultValue = "100000")
        private int keys;

        @Option(names = "--nodes", paramLabel = "N,N,...", split = ",", defaultValue = "5",
                description = "nodes before a join, decommission or removal")
        private int[] nodes;

        @Option(names = "--seed", description = "seed of the keys", defaultValue = "1")
        private long seed;

        @Override
        public Integer call() {
            byte[][] sample = keys(keys, seed);
            System.out.println("| nodes | partitioner | RF | change | ideal copies | replaced rule / ideal | plan / ideal"
                    + " | keys gaining a replica |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (int size : nodes) {
                for (String partitioner : PARTITIONERS) {
                    for (int replicationFactor : new int[] {2, 3}) {
                        List<String> urls = new ArrayList<>();
                        for (int i = 0; i < size; i++) {
                            urls.add("http://10.0.0." + (i + 1) + ":8080");
                        }
                        ClusterMap map = ClusterMap.seed(urls, replicationFactor, partitioner, VIRTUAL_NODES);
                        String middle = urls.get(size / 2);
                        String newcomer = "http://10.0.0." + (size + 1) + ":8080";
                        ClusterMap joining = map.withJoining(newcomer);
                        ClusterMap leaving = map.withState(middle, NodeState.LEAVING);
                        String row = "| " + size + " | " + partitioner + " | " + replicationFactor + " | ";
                        row(row + "join", count(KeyMovement.join(1, joining, newcomer), sample));
                        row(row + "decommission", count(KeyMovement.decommission(1, leaving, middle), sample));
                        row(row + "removal", count(KeyMovement.removal(1, leaving, leaving.without(middle)), sample));
                    }
                }
            }
            return 0;
        }

        private void row(String start, Count count) {
            System.out.printf(Locale.ROOT, "%s | %,d | %.2f | %.2f | %.1f%% |%n", start, count.ideal(),
                    (double) count.replacedRule() / count.ideal(), (double) count.streamed() / count.ideal(),
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

    /** What {@code movement} streams of {@code keys}, what the replaced rule streamed, and the ideal. */
    static Count count(KeyMovement movement, byte[][] keys) {
        Partitioner before = movement.before().placement();
        Partitioner after = movement.after().placement();
        int beforeCount = movement.before().replicationFactor();
        int afterCount = movement.after().replicationFactor();
        List<String> senders = movement.senders();
        int[] out = new int[afterCount];
        int[] was = new int[beforeCount];
        int[] will = new int[afterCount];
        int[] scratchB = new int[beforeCount];
        int[] scratchA = new int[afterCount];
        long streamed = 0;
        long replaced = 0;
        long ideal = 0;
        long moving = 0;
        for (byte[] key : keys) {
            before.replicas(key, beforeCount, was);
            after.replicas(key, afterCount, will);
            int sending = 0;
            for (int i = 0; i < beforeCount; i++) {
                String node = before.nodes().get(was[i]);
                // Only a key's replicas can send it: asking the other senders changes nothing.
                if (senders.contains(node)) {
                    streamed += movement.targets(key, was[i], out, scratchB, scratchA);
                    boolean stays = contains(after, will, afterCount, node);
                    sending += movement.fromSurvivors() || !stays ? 1 : 0;
                }
            }
            int gained = 0;
            for (int j = 0; j < afterCount; j++) {
                gained += contains(before, was, beforeCount, after.nodes().get(will[j])) ? 0 : 1;
            }
            replaced += (long) sending * gained;
            ideal += gained;
            moving += gained > 0 ? 1 : 0;
        }
        return new Count(streamed, replaced, ideal, moving);
    }

    private static boolean contains(Partitioner placement, int[] replicas, int count, String node) {
        for (int i = 0; i < count; i++) {
            if (placement.nodes().get(replicas[i]).equals(node)) {
                return true;
            }
        }
        return false;
    }
}
