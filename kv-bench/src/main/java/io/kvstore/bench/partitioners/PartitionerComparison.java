package io.kvstore.bench.partitioners;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.openjdk.jol.info.GraphLayout;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Compares every partitioner on balance (random and sequential numeric keys), movement when a node
 * joins or leaves, lookup cost and memory, and writes a Markdown report with PNG charts.
 *
 * <pre>
 * ./mvnw -q -pl kv-bench -am package -DskipTests
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.partitioners.PartitionerComparison --out docs/partitioners
 * </pre>
 */
public final class PartitionerComparison {
    private final int keyCount;
    private final int[] nodeCounts;
    private final int[] vnodeCounts;
    private final Path out;
    private final long seed;

    PartitionerComparison(int keyCount, int[] nodeCounts, int[] vnodeCounts, Path out, long seed) {
        this.keyCount = keyCount;
        this.nodeCounts = nodeCounts;
        this.vnodeCounts = vnodeCounts;
        this.out = out;
        this.seed = seed;
    }

    /** Writes the report {@code args} describe; {@code --help} lists the options. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Command()).execute(args));
    }

    @CommandLine.Command(name = "PartitionerComparison", showDefaultValues = true, usageHelpWidth = 110,
            customSynopsis = "java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.partitioners.PartitionerComparison"
                    + " [OPTIONS]",
            description = {"Compares every partitioner on balance, movement, lookup cost and memory; writes REPORT.md"
                    + " and three PNG charts.", ""})
    private static final class Command implements Callable<Integer> {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
        private boolean help;

        @Option(names = "--keys", paramLabel = "N", defaultValue = "1000000", description = "keys of each kind placed")
        private int keys;

        @Option(names = "--nodes", paramLabel = "N,N,...", split = ",", defaultValue = "3,5,10,24,100",
                description = "cluster sizes")
        private int[] nodes;

        @Option(names = "--vnodes", paramLabel = "V,V,...", split = ",", defaultValue = "1,3,10,100,256,1000",
                description = "virtual nodes per node tried on the ring")
        private int[] vnodes;

        @Option(names = "--out", paramLabel = "DIR", defaultValue = "docs/partitioners",
                description = "directory of the report and its charts")
        private Path out;

        @Option(names = "--seed", paramLabel = "S", defaultValue = "20261122", description = "seed of the random keys")
        private long seed;

        @Override
        public Integer call() throws IOException {
            Path report = new PartitionerComparison(keys, nodes, vnodes, out, seed).run();
            System.out.println("wrote " + report + " and its charts");
            return 0;
        }
    }

    /** Runs every measurement and writes REPORT.md plus three PNG charts into the output directory. */
    Path run() throws IOException {
        Files.createDirectories(out);
        byte[][] randomKeys = randomKeys(keyCount, seed);
        byte[][] sequentialKeys = sequentialKeys(keyCount);
        StringBuilder md = new StringBuilder();
        md.append("# Partitioner comparison\n\n")
                .append(String.format(Locale.ROOT, "Generated %s by `PartitionerComparison --keys %d --nodes %s --vnodes %s`"
                        + " on %d cores, %s. Random keys are 16 random bytes (seed %d); sequential keys are the"
                        + " decimal strings \"1\" ... \"%d\". The ring uses 256 virtual nodes per node unless stated.%n%n",
                        LocalDate.now(ZoneOffset.UTC), keyCount, join(nodeCounts), join(vnodeCounts),
                        Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.version"), seed, keyCount));

        balance(md, randomKeys, sequentialKeys);
        ringVnodes(md, randomKeys);
        movement(md, randomKeys);
        lookupCostAndMemory(md, randomKeys);
        md.append(literature());
        Path report = out.resolve("REPORT.md");
        Files.writeString(report, md.toString(), StandardCharsets.UTF_8);
        return report;
    }

    private void balance(StringBuilder md, byte[][] randomKeys, byte[][] sequentialKeys) throws IOException {
        md.append("## Balance: keys per node\n\n")
                .append("Peak/mean is the most loaded node's keys over the average (1.00 is perfect); CV is the"
                        + " standard deviation of keys per node over the mean.\n\n")
                .append("| partitioner | nodes | random peak/mean | random CV | sequential peak/mean | sequential CV |\n")
                .append("|---|---|---|---|---|---|\n");
        int chartNodes = nodeCounts[Math.min(2, nodeCounts.length - 1)];
        Map<String, LoadStats> forChart = new LinkedHashMap<>();
        for (String name : Partitioners.names()) {
            for (int n : nodeCounts) {
                Partitioner p = Partitioners.create(name, nodeNames(n));
                LoadStats random = LoadStats.of(p, randomKeys);
                LoadStats sequential = LoadStats.of(p, sequentialKeys);
                md.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.2f%% | %.3f | %.2f%% |%n", name, n,
                        random.peakToMean, 100 * random.relativeStdDev,
                        sequential.peakToMean, 100 * sequential.relativeStdDev));
                if (n == chartNodes) {
                    forChart.put(name, random);
                }
            }
        }
        Charts.loadPerNode(out.resolve("load-per-node.png"), chartNodes, forChart);
        md.append("\n![load per node](load-per-node.png)\n\n");
    }

    private void ringVnodes(StringBuilder md, byte[][] randomKeys) throws IOException {
        md.append("## Ring: virtual nodes against balance\n\n")
                .append("| nodes | vnodes per node | peak/mean | CV |\n|---|---|---|---|\n");
        Map<Integer, double[]> peaks = new LinkedHashMap<>();
        for (int n : new int[] {nodeCounts[Math.min(2, nodeCounts.length - 1)], nodeCounts[nodeCounts.length - 1]}) {
            if (peaks.containsKey(n)) {
                continue;
            }
            double[] series = new double[vnodeCounts.length];
            for (int i = 0; i < vnodeCounts.length; i++) {
                LoadStats stats = LoadStats.of(Partitioners.create("ring", nodeNames(n), vnodeCounts[i]), randomKeys);
                series[i] = stats.peakToMean;
                md.append(String.format(Locale.ROOT, "| %d | %d | %.3f | %.2f%% |%n", n, vnodeCounts[i],
                        stats.peakToMean, 100 * stats.relativeStdDev));
            }
            peaks.put(n, series);
        }
        Charts.ringVnodes(out.resolve("ring-vnodes.png"), vnodeCounts, peaks);
        md.append("\n![ring peak/mean against vnodes](ring-vnodes.png)\n\n");
    }

    private void movement(StringBuilder md, byte[][] randomKeys) throws IOException {
        md.append("## Movement: keys whose first replica changes\n\n")
                .append("A node joins at the end of the node list (n -> n+1; ideal 1/(n+1) of the keys move) or the"
                        + " last node leaves (n -> n-1; ideal 1/n, the keys it held). Jump hash can only add or"
                        + " remove the last bucket, so the last node is the one that leaves for every algorithm.\n\n")
                .append("| partitioner | n | join: moved | join: ideal | leave: moved | leave: ideal |\n")
                .append("|---|---|---|---|---|---|\n");
        Map<String, double[]> joinPercents = new LinkedHashMap<>();
        for (String name : Partitioners.names()) {
            double[] percents = new double[nodeCounts.length];
            for (int i = 0; i < nodeCounts.length; i++) {
                int n = nodeCounts[i];
                Partitioner base = Partitioners.create(name, nodeNames(n));
                double join = LoadStats.movedShare(base, Partitioners.create(name, nodeNames(n + 1)), randomKeys);
                String leave = n > 1
                        ? String.format(Locale.ROOT, "%.2f%%", 100 * LoadStats.movedShare(base,
                                Partitioners.create(name, nodeNames(n - 1)), randomKeys))
                        : "n/a";
                percents[i] = 100 * join;
                md.append(String.format(Locale.ROOT, "| %s | %d | %.2f%% | %.2f%% | %s | %.2f%% |%n",
                        name, n, 100 * join, 100.0 / (n + 1), leave, 100.0 / n));
            }
            joinPercents.put(name, percents);
        }
        Charts.keysMoved(out.resolve("keys-moved.png"), nodeCounts, joinPercents);
        md.append("\n![keys moved on join](keys-moved.png)\n\n");
    }

    private void lookupCostAndMemory(StringBuilder md, byte[][] randomKeys) {
        md.append("## Lookup cost and memory\n\n")
                .append("Indicative only: a plain timed loop over the random keys after a warm-up pass, on a"
                        + " shared machine. The JMH figures (`PartitionerBenchmark`) in docs/BENCHMARKS.md are the"
                        + " ones to quote. Memory is the retained size of the partitioner object graph (JOL),"
                        + " node names included.\n\n")
                .append("| partitioner | nodes | ns per primary | ns per replicas(3) | retained bytes |\n")
                .append("|---|---|---|---|---|\n");
        int[] out3 = new int[3];
        for (String name : Partitioners.names()) {
            for (int n : nodeCounts) {
                Partitioner p = Partitioners.create(name, nodeNames(n));
                int sink = 0;
                for (int pass = 0; pass < 2; pass++) { // first pass warms the JIT up
                    sink += time(p, randomKeys, null);
                }
                long primaryNanos = System.nanoTime();
                sink += time(p, randomKeys, null);
                primaryNanos = System.nanoTime() - primaryNanos;
                String replicas = "n/a";
                if (n >= 3) {
                    sink += time(p, randomKeys, out3);
                    long t = System.nanoTime();
                    sink += time(p, randomKeys, out3);
                    replicas = String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t) / (double) randomKeys.length);
                }
                long bytes = GraphLayout.parseInstance(p).totalSize();
                md.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %d |%s%n", name, n,
                        primaryNanos / (double) randomKeys.length, replicas, bytes, sink == 42 ? " " : ""));
            }
        }
        md.append('\n');
    }

    private static int time(Partitioner p, byte[][] keys, int[] replicas) {
        int sink = 0;
        for (byte[] key : keys) {
            sink += replicas == null ? p.primary(key) : p.replicas(key, replicas.length, replicas)[replicas.length - 1];
        }
        return sink;
    }

    private static String literature() {
        return "## What the papers claim, and what we see\n\n"
                + "- Karger et al. (STOC 1997) and the consistent-hashing ring: with v points per node the load"
                + " of a node varies with a relative standard deviation of roughly 1/sqrt(v) (about 10% at 100"
                + " points, about 3% at 1000). Compare the CV column of the ring table above.\n"
                + "- Lamping and Veach, \"A Fast, Minimal Memory, Consistent Hash Algorithm\" (2014): jump hash"
                + " needs no memory, divides keys more evenly than the ring, and moves only the keys that must move"
                + " (1/(n+1) when growing to n+1 buckets); its limit is that buckets are numbered, so only the last"
                + " one can leave. Compare jump's peak/mean, its retained bytes and its join/leave rows above.\n"
                + "- Eisenbud et al., \"Maglev: A Fast and Reliable Software Network Load Balancer\" (NSDI 2016):"
                + " the lookup table is filled so each backend owns almost exactly M/N entries (near-perfect"
                + " balance), lookups are one table read, and disruption on a change is small but above the"
                + " minimum. Compare maglev's peak/mean and how far its join/leave rows sit above the ideal.\n"
                + "- mod-N is the baseline the others exist to beat: perfect balance, but about n/(n+1) of keys"
                + " move on any change of n.\n";
    }

    static List<String> nodeNames(int n) {
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(String.format(Locale.ROOT, "node-%03d", i));
        }
        return names;
    }

    static byte[][] randomKeys(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] keys = new byte[count][16];
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        return keys;
    }

    static byte[][] sequentialKeys(int count) {
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            keys[i] = Integer.toString(i + 1).getBytes(StandardCharsets.US_ASCII);
        }
        return keys;
    }

    private static String join(int[] values) {
        StringBuilder sb = new StringBuilder();
        for (int v : values) {
            sb.append(sb.length() == 0 ? "" : ",").append(v);
        }
        return sb.toString();
    }
}
