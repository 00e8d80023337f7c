package io.kvstore.bench;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of placing one key: {@link Partitioner#primary(byte[])} (what {@code replicas(key, 1)} does)
 * and {@code replicas(key, 3, out)} with a reused output array, for every algorithm at 3, 10 and 100
 * nodes ({@code ring} with the default 256 virtual nodes per node). Keys are realistic 6-25 byte
 * strings ({@code "user:<u64>"}); the time includes hashing the key (XXH64).
 *
 * <p>The keys cycle through 16,384 distinct ones: with fewer the branch predictor learns each key's
 * path, and loops with a data-dependent trip count look faster than they are.
 *
 * <p>Run: {@code java -jar kv-bench/target/benchmarks.jar PartitionerBenchmark -prof gc}; the figures
 * and the targets they are held to are in docs/BENCHMARKS.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PartitionerBenchmark {
    private static final int KEY_COUNT = 1 << 14;

    @Param({"ring", "rendezvous", "modn", "jump", "maglev"})
    public String algorithm;

    @Param({"3", "10", "100"})
    public int nodes;

    private Partitioner partitioner;
    private byte[][] keys;
    private final int[] out = new int[3];
    private int next;

    @Setup
    public void setUp() {
        List<String> nodeList = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            nodeList.add("http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8080");
        }
        partitioner = Partitioners.create(algorithm, nodeList);
        SplittableRandom random = new SplittableRandom(42);
        keys = new byte[KEY_COUNT][];
        for (int i = 0; i < KEY_COUNT; i++) {
            keys[i] = ("user:" + Long.toUnsignedString(random.nextLong())).getBytes(StandardCharsets.UTF_8);
        }
    }

    private byte[] nextKey() {
        next = (next + 1) & (KEY_COUNT - 1);
        return keys[next];
    }

    /** {@code replicas(key, 1)}: the primary node. */
    @Benchmark
    public int primary() {
        return partitioner.primary(nextKey());
    }

    /** {@code replicas(key, 3)} into a reused array: the default replica set of a 3-way replicated key. */
    @Benchmark
    public int[] replicas3() {
        return partitioner.replicas(nextKey(), 3, out);
    }
}
