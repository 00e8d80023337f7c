package io.kvstore.core.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.table.SsTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Measures the write and space amplification of compaction (the figures in docs/FORMAT.md); a
 * program, not a test:
 * <pre>
 * ./mvnw -q -pl kv-core test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp kv-core/target/classes:kv-core/target/test-classes:$(cat kv-core/target/cp.txt) \
 *     io.kvstore.core.lsm.CompactionAmplification WRITES DISTINCT_KEYS FLUSH_BYTES TRIGGER \
 *     [LEVELED TARGET_TABLE_BYTES LEVEL_BASE_BYTES]
 * </pre>
 * Tables are uncompressed, so that the figures compare with those of the first table format.
 */
public final class CompactionAmplification {
    private CompactionAmplification() {
    }

    public static void main(String[] args) throws IOException {
        int writes = Integer.parseInt(args[0]);
        int distinct = Integer.parseInt(args[1]);
        long flushBytes = Long.parseLong(args[2]);
        int trigger = Integer.parseInt(args[3]);
        Path dir = Files.createTempDirectory("kvstore-amplification");
        byte[] value = new byte[100];
        Random random = new Random(1);
        random.nextBytes(value);
        long maxLive = 0;
        int maxTables = 0;
        long tableSamples = 0;
        int samples = 0;
        DaoOptions.Builder builder = DaoOptions.builder(dir).flushThresholdBytes(flushBytes).compactionTrigger(trigger)
                .compression(Compression.NONE);
        String style = "SIZE_TIERED";
        if (args.length > 4) {
            style = args[4];
            builder.compactionStyle(CompactionStyle.valueOf(style));
            if (args.length > 6) {
                builder.targetTableBytes(Long.parseLong(args[5])).levelBaseBytes(Long.parseLong(args[6]));
            }
        }
        DaoOptions options = builder.build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < writes; i++) {
                long k = distinct >= writes ? i : random.nextInt(distinct);
                dao.upsert(Entry.value(key(k), value, i));
                if ((i & 4095) == 0) {
                    SsTable[] tables = dao.liveTables();
                    maxLive = Math.max(maxLive, bytes(tables));
                    maxTables = Math.max(maxTables, tables.length);
                    tableSamples += tables.length;
                    samples++;
                }
            }
            dao.flush();
            long flushed = dao.flushedBytes();
            long compacted = dao.compactedBytes();
            dao.compact();
            long compactedSize = bytes(dao.liveTables());
            System.out.printf("%s writes=%d distinct=%d flush=%d trigger=%d: flushed=%d MB, compaction wrote=%d MB,"
                            + " write amplification (tables)=%.2f, max live/compacted=%.2f, tables max=%d avg=%.1f%n",
                    style, writes, distinct, flushBytes, trigger, flushed >> 20, compacted >> 20,
                    (flushed + compacted) / (double) flushed, maxLive / (double) compactedSize, maxTables,
                    tableSamples / (double) Math.max(1, samples));
        }
    }

    private static long bytes(SsTable[] tables) {
        long sum = 0;
        for (SsTable table : tables) {
            sum += table.fileSize();
        }
        return sum;
    }

    /** 16 bytes: a scrambled prefix so keys arrive in random order, then the number itself. */
    private static byte[] key(long k) {
        byte[] key = new byte[16];
        long h = k * 0x9E3779B97F4A7C15L;
        for (int b = 0; b < 8; b++) {
            key[b] = (byte) (h >>> (56 - 8 * b));
            key[8 + b] = (byte) (k >>> (56 - 8 * b));
        }
        return key;
    }
}
