package io.kvstore.bench;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
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
 * Cost of placing a key: {@code primary} (replicas(key, 1)) and {@code replicas(key, 3)} into a reused
 * array, per algorithm and cluster size, on 16-byte random keys. Run with {@code -prof gc} to check
 * that lookups allocate nothing.
 *
 * <pre>java -jar kv-bench/target/benchmarks.jar PartitionerBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PartitionerBenchmark {
    private static final int KEYS = 4096; // a power of two, so the index wraps with a mask

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
        List<String> names = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            names.add("http://node-" + i + ":8080");
        }
        partitioner = Partitioners.create(algorithm, names, 256);
        SplittableRandom random = new SplittableRandom(1);
        keys = new byte[KEYS][16];
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
    }

    @Benchmark
    public int primary() {
        return partitioner.primary(keys[next++ & (KEYS - 1)]);
    }

    @Benchmark
    public int[] replicas3() {
        return partitioner.replicas(keys[next++ & (KEYS - 1)], 3, out);
    }
}
