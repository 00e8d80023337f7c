package io.kvstore.bench.partitioners;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.internal.TokenAllocator;
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
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Compares every partitioner on balance (random and sequential numeric keys), the ring's random and
 * allocated tokens as a cluster grows, movement when a node joins or is decommissioned, lookup cost and
 * memory, and writes a Markdown report with PNG charts.
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
                    + " and four PNG charts.", ""})
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

    /** Tokens per node of the allocated ring in the report, the default when tokens are allocated. */
    private static final int ALLOCATED_TOKENS = TokenAllocator.DEFAULT_TOKENS;
    /** The replication factor the allocated ring of the movement table is allocated for. */
    private static final int MOVEMENT_RF = 3;

    /** Runs every measurement and writes REPORT.md plus four PNG charts into the output directory. */
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
        ringGrowth(md);
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

    /**
     * The ring's balance as a cluster grows one node at a time, 3 nodes up to the largest size: the
     * replicated ownership (each node's share of keys as one of the first RF replicas, computed exactly
     * from the tokens) of allocated tokens against random ones.
     */
    private void ringGrowth(StringBuilder md) throws IOException {
        int largest = nodeCounts[nodeCounts.length - 1];
        int smallest = Math.min(3, largest);
        List<String> names = nodeNames(largest);
        List<long[]> random16 = new ArrayList<>();
        List<long[]> random256 = new ArrayList<>();
        for (String name : names) {
            random16.add(Partitioners.hashedRingTokens(name, ALLOCATED_TOKENS));
            random256.add(Partitioners.hashedRingTokens(name, Partitioners.DEFAULT_VIRTUAL_NODES));
        }
        int[] sizes = new int[largest - smallest + 1];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = smallest + i;
        }
        Map<String, double[]> series = new LinkedHashMap<>();
        StringBuilder timing = new StringBuilder();
        for (int rf : new int[] {1, 3}) {
            List<long[]> allocated = new ArrayList<>();
            long lastJoinNanos = 0;
            for (int n = 0; n < largest; n++) {
                long start = System.nanoTime();
                allocated.add(TokenAllocator.allocate(allocated, ALLOCATED_TOKENS, rf));
                lastJoinNanos = System.nanoTime() - start;
            }
            timing.append(String.format(Locale.ROOT, "%s%.0f ms for RF %d", timing.length() == 0 ? "" : ", ",
                    lastJoinNanos / 1e6, rf));
            series.put(ALLOCATED_TOKENS + " allocated, RF " + rf, growth(allocated, sizes, rf));
            if (rf > 1) {
                series.put(ALLOCATED_TOKENS + " allocated for RF " + rf + ", first replicas", growth(allocated, sizes, 1));
            }
            series.put(ALLOCATED_TOKENS + " random, RF " + rf, growth(random16, sizes, rf));
            series.put(Partitioners.DEFAULT_VIRTUAL_NODES + " random, RF " + rf, growth(random256, sizes, rf));
        }
        md.append("## Ring: allocated tokens against random ones as a cluster grows\n\n")
                .append(String.format(Locale.ROOT, "Nodes join one at a time, %d to %d. Allocated tokens"
                        + " (`--ring-tokens allocated`, %d per node) are chosen by `TokenAllocator` for the"
                        + " replication factor shown, given the tokens already placed; random ones are hashes of the"
                        + " node names. Each cell is the most loaded node's replicated ownership (its share of keys"
                        + " as one of the first RF replicas, computed exactly from the tokens) over the mean; the"
                        + " \"first replicas\" column is the share of keys whose first replica each node is, which"
                        + " coordinates the requests a partition-aware client sends."
                        + " Allocating the tokens of the %dth node took %s.%n%n", smallest, largest, ALLOCATED_TOKENS,
                        largest, timing));
        md.append("| nodes |");
        for (String name : series.keySet()) {
            md.append(' ').append(name).append(" |");
        }
        md.append("\n|---|");
        md.append("---|".repeat(series.size()));
        md.append('\n');
        for (int n : nodeCounts) {
            if (n >= smallest) {
                md.append("| ").append(n).append(" |");
                for (double[] peaks : series.values()) {
                    md.append(String.format(Locale.ROOT, " %.3f |", peaks[n - smallest]));
                }
                md.append('\n');
            }
        }
        md.append(String.format(Locale.ROOT, "| worst of %d..%d |", smallest, largest));
        for (double[] peaks : series.values()) {
            double worst = 0;
            for (double peak : peaks) {
                worst = Math.max(worst, peak);
            }
            md.append(String.format(Locale.ROOT, " %.3f |", worst));
        }
        md.append('\n');
        Charts.ringGrowth(out.resolve("ring-growth.png"), sizes, series);
        md.append("\n![ring peak/mean as a cluster grows](ring-growth.png)\n\n");
    }

    /** Peak/mean replicated ownership of the first {@code n} nodes of {@code tokens}, for each size. */
    private static double[] growth(List<long[]> tokens, int[] sizes, int rf) {
        double[] peaks = new double[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            double[] ownership = TokenAllocator.replicatedOwnership(tokens.subList(0, sizes[i]), rf);
            double peak = 0;
            double sum = 0;
            for (double share : ownership) {
                peak = Math.max(peak, share);
                sum += share;
            }
            peaks[i] = peak / (sum / ownership.length);
        }
        return peaks;
    }

    private void movement(StringBuilder md, byte[][] randomKeys) throws IOException {
        md.append("## Movement: keys whose first replica changes\n\n")
                .append("In map order, as the cluster map changes: a node joins at the end (n -> n+1; ideal 1/(n+1)"
                        + " of the keys move), or the node in the middle of the map (position n/2, counting from 0) is"
                        + " decommissioned and the others keep their order (n -> n-1; ideal 1/n, the keys it held)."
                        + " Jump hash numbers its buckets, so removing any node but the last renumbers the nodes"
                        + " after it. The allocated ring has " + ALLOCATED_TOKENS + " tokens per node allocated for RF "
                        + MOVEMENT_RF + " as the nodes joined in map order; a decommissioned node's tokens leave with it"
                        + " and the others keep theirs.\n\n")
                .append("| partitioner | n | join: moved | join: ideal | decommission: moved | decommission: ideal |\n")
                .append("|---|---|---|---|---|---|\n");
        int largest = nodeCounts[nodeCounts.length - 1];
        List<String> names = nodeNames(largest + 1);
        List<long[]> allocated = TokenAllocator.allocateAll(largest + 1, ALLOCATED_TOKENS, MOVEMENT_RF);
        Map<String, Placement> placements = new LinkedHashMap<>();
        for (String name : Partitioners.names()) {
            placements.put(name, nodes -> Partitioners.create(name, select(names, nodes)));
        }
        placements.put("ring, allocated", nodes -> Partitioners.ring(select(names, nodes), select(allocated, nodes)));
        Map<String, double[]> joinPercents = new LinkedHashMap<>();
        for (Map.Entry<String, Placement> placement : placements.entrySet()) {
            double[] percents = new double[nodeCounts.length];
            for (int i = 0; i < nodeCounts.length; i++) {
                int n = nodeCounts[i];
                Partitioner base = placement.getValue().over(firstNodes(n));
                double join = LoadStats.movedShare(base, placement.getValue().over(firstNodes(n + 1)), randomKeys);
                String leave = "n/a";
                if (n > 1) {
                    List<Integer> remaining = firstNodes(n);
                    remaining.remove(n / 2);
                    leave = String.format(Locale.ROOT, "%.2f%%",
                            100 * LoadStats.movedShare(base, placement.getValue().over(remaining), randomKeys));
                }
                percents[i] = 100 * join;
                md.append(String.format(Locale.ROOT, "| %s | %d | %.2f%% | %.2f%% | %s | %.2f%% |%n",
                        placement.getKey(), n, 100 * join, 100.0 / (n + 1), leave, 100.0 / n));
            }
            joinPercents.put(placement.getKey(), percents);
        }
        Charts.keysMoved(out.resolve("keys-moved.png"), nodeCounts, joinPercents);
        md.append("\n![keys moved on join](keys-moved.png)\n\n");
    }

    /** A partitioner over some nodes of the map, given by their positions in map order. */
    private interface Placement {
        Partitioner over(List<Integer> positions);
    }

    private static List<Integer> firstNodes(int n) {
        List<Integer> positions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            positions.add(i);
        }
        return positions;
    }

    private static <T> List<T> select(List<T> all, List<Integer> positions) {
        List<T> selected = new ArrayList<>(positions.size());
        for (int position : positions) {
            selected.add(all.get(position));
        }
        return selected;
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
