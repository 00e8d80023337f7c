package io.kvstore.examples.placement;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Every partitioner the product has, side by side: how evenly each spreads keys over five nodes, and
 * what share of the keys each moves when a sixth node joins (ideally 1/6: only those the new node
 * takes). Balance is of first replicas: each node's keys against the mean (max, min, standard
 * deviation). The {@code ring} here is {@link Partitioners#create(String, List)}'s, 256 virtual nodes
 * hashed from each node's name; a server's cluster map allocates 16 tokens per node instead (see
 * docs/OPERATIONS.md, "Ring tokens"). The full report, over many cluster sizes and key shapes, is
 * kv-bench's {@code PartitionerComparison}.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.placement.ComparePartitioners [keys]</pre>
 */
public final class ComparePartitioners {
    private static final int NODES = 5;

    private ComparePartitioners() {
    }

    public static void main(String[] args) {
        run(args.length > 0 ? Integer.parseInt(args[0]) : 100_000, System.out);
    }

    /** Prints one row per partitioner and returns the rows, in {@link Partitioners#names()} order. */
    static List<Row> run(int keyCount, PrintStream out) {
        List<String> before = nodes(NODES);
        List<String> after = nodes(NODES + 1);
        byte[][] keys = new byte[keyCount][];
        for (int i = 0; i < keyCount; i++) {
            keys[i] = ("user:" + i).getBytes(StandardCharsets.UTF_8);
        }
        out.printf("%d keys on %d nodes, then a node joins (ideal share moved: 1/%d = %.3f)%n",
                keyCount, NODES, NODES + 1, 1.0 / (NODES + 1));
        out.printf("%-11s %9s %9s %11s %7s%n", "partitioner", "max/mean", "min/mean", "stddev/mean", "moved");
        List<Row> rows = new ArrayList<>();
        for (String name : Partitioners.names()) {
            Partitioner five = Partitioners.create(name, before);
            // The same node names, one more at the end: what a cluster map looks like after a join.
            Partitioner six = Partitioners.create(name, after);
            long[] load = new long[NODES];
            long moved = 0;
            for (byte[] key : keys) {
                int owner = five.primary(key);
                load[owner]++;
                if (!after.get(six.primary(key)).equals(before.get(owner))) {
                    moved++;
                }
            }
            Row row = Row.of(name, load, (double) moved / keyCount);
            rows.add(row);
            out.printf("%-11s %9.3f %9.3f %11.3f %7.3f%n", name, row.maxOverMean(), row.minOverMean(),
                    row.stddevOverMean(), row.movedShare());
        }
        return rows;
    }

    private static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            nodes.add("http://10.0.0." + i + ":8080");
        }
        return nodes;
    }

    /** One partitioner's figures: first replicas per node, and the share of keys whose first replica moved. */
    record Row(String name, long[] load, double maxOverMean, double minOverMean, double stddevOverMean, double movedShare) {
        static Row of(String name, long[] load, double movedShare) {
            double mean = 0;
            long max = Long.MIN_VALUE;
            long min = Long.MAX_VALUE;
            for (long l : load) {
                mean += l;
                max = Math.max(max, l);
                min = Math.min(min, l);
            }
            mean /= load.length;
            double variance = 0;
            for (long l : load) {
                variance += (l - mean) * (l - mean);
            }
            double stddev = Math.sqrt(variance / load.length);
            return new Row(name, load, max / mean, min / mean, stddev / mean, movedShare);
        }
    }
}
