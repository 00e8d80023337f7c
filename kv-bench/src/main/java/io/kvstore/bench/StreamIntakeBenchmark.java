package io.kvstore.bench;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.lsm.LsmDao;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What a node pays to take the keys it gains in a join: the streams of {@code --sources} owners, each
 * in key order and interleaved with the others' keys, in batches of {@code --batch-bytes} taken in turn
 * from each source, stored into a fresh LSM store either entry by entry ({@code upsert}) or as tables
 * ({@code ingest}, {@link Dao#ingest}, what a node does with streamed batches). Per round and mode: the
 * time to take every batch, the time until no compaction is due afterwards, the bytes flushes and
 * compactions wrote (the log left out), and the live tables at the end (per level), which for
 * {@code ingest} are the bytes it wrote. The modes alternate in each round, on fresh stores.
 *
 * <pre>
 * java -Xmx2g -cp kv-bench/target/benchmarks.jar io.kvstore.bench.StreamIntakeBenchmark --keys 1000000 --rounds 3
 * </pre>
 */
@Command(name = "stream-intake-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Stores streamed batches into a fresh store by upserts and by ingestion, side by side.")
public final class StreamIntakeBenchmark implements Callable<Integer> {

    @Option(names = "--keys", description = "keys streamed in all")
    int keys = 1_000_000;

    @Option(names = "--value-bytes", description = "bytes per value")
    int valueBytes = 100;

    @Option(names = "--sources", description = "owners streaming, each a share of the keys interleaved with the others'")
    int sources = 3;

    @Option(names = "--batch-bytes", description = "bytes of entries per batch, as --stream-batch-bytes")
    int batchBytes = 4 << 20;

    @Option(names = "--rounds", description = "rounds, each running both modes on fresh stores")
    int rounds = 3;

    public static void main(String[] args) {
        System.exit(new CommandLine(new StreamIntakeBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<List<Entry>> batches = batches();
        System.out.printf("%,d keys of %d-byte values from %d sources in %,d batches of up to %,d bytes%n",
                keys, valueBytes, sources, batches.size(), batchBytes);
        System.out.println("| round | mode | take the batches | until compaction rests | flushes + compactions wrote | live tables |");
        System.out.println("|---|---|---|---|---|---|");
        for (int round = 1; round <= rounds; round++) {
            boolean ingestFirst = round % 2 == 0;
            for (int m = 0; m < 2; m++) {
                boolean ingest = (m == 0) == ingestFirst;
                run(round, ingest, batches);
            }
        }
        return 0;
    }

    private void run(int round, boolean ingest, List<List<Entry>> batches) throws Exception {
        Path dir = BenchDirectories.root().resolve("stream-intake");
        BenchDirectories.deleteRecursively(dir);
        try (LsmDao dao = LsmDao.open(DaoOptions.defaults(dir))) {
            long start = System.nanoTime();
            for (List<Entry> batch : batches) {
                if (ingest) {
                    dao.ingest(batch);
                } else {
                    for (Entry entry : batch) {
                        dao.upsert(entry);
                    }
                }
            }
            long taken = System.nanoTime();
            dao.flush();
            while (dao.properties().compactionsPending() > 0) {
                Thread.sleep(50);
            }
            long rested = System.nanoTime();
            DaoProperties p = dao.properties();
            System.out.printf("| %d | %s | %.2f s | %.2f s | %,d B | %,d B in %s |%n", round, ingest ? "ingest" : "upsert",
                    (taken - start) / 1e9, (rested - start) / 1e9, p.flushedBytes() + p.compactedBytes(), p.tableBytes(),
                    p.tablesPerLevel());
        } finally {
            BenchDirectories.deleteRecursively(dir);
        }
    }

    /** Each source's keys in order, cut into batches, the batches taken in turn from each source. */
    private List<List<Entry>> batches() {
        SplittableRandom random = new SplittableRandom(1);
        List<List<List<Entry>>> perSource = new ArrayList<>();
        for (int s = 0; s < sources; s++) {
            perSource.add(new ArrayList<>());
        }
        List<String> names = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            names.add(String.format("%016x", random.nextLong()));
        }
        names.sort(null);
        long timestamp = System.currentTimeMillis() << 16;
        int[] bytes = new int[sources];
        List<List<Entry>> open = new ArrayList<>();
        for (int s = 0; s < sources; s++) {
            open.add(new ArrayList<>());
        }
        for (int i = 0; i < keys; i++) {
            int s = i % sources;
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            byte[] key = names.get(i).getBytes(StandardCharsets.UTF_8);
            open.get(s).add(Entry.value(key, value, timestamp));
            bytes[s] += key.length + valueBytes + 16;
            if (bytes[s] >= batchBytes) {
                perSource.get(s).add(open.get(s));
                open.set(s, new ArrayList<>());
                bytes[s] = 0;
            }
        }
        for (int s = 0; s < sources; s++) {
            if (!open.get(s).isEmpty()) {
                perSource.get(s).add(open.get(s));
            }
        }
        List<List<Entry>> interleaved = new ArrayList<>();
        for (int b = 0; ; b++) {
            boolean any = false;
            for (List<List<Entry>> source : perSource) {
                if (b < source.size()) {
                    interleaved.add(source.get(b));
                    any = true;
                }
            }
            if (!any) {
                return interleaved;
            }
        }
    }
}
