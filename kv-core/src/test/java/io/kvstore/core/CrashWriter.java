package io.kvstore.core;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The child process of {@link DaoCrashTest}: opens a store and writes sequential keys until it is
 * killed, printing each acknowledged write to stdout only after the Dao method returned.
 *
 * <p>Arguments: engine name, data directory, first key index, flush threshold in bytes, then options
 * as {@code name=value} ({@link #applyOptions}). Output lines:
 * {@code P i} after the put of key {@code i}, {@code D j} after the delete of key {@code j}. Every
 * index {@code i} with {@code i % 10 == 9} is followed by the delete of index {@code i - 5}.
 */
public final class CrashWriter {
    private CrashWriter() {
    }

    public static void main(String[] args) throws IOException {
        Engine engine = Engine.fromName(args[0]);
        Path directory = Path.of(args[1]);
        long first = Long.parseLong(args[2]);
        long flushThreshold = Long.parseLong(args[3]);
        DaoOptions.Builder builder = DaoOptions.builder(directory)
                .flushThresholdBytes(flushThreshold)
                .compactionTrigger(2);
        applyOptions(builder, Arrays.asList(args).subList(4, args.length));
        DaoOptions options = builder.build();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
        try (Dao dao = engine.open(options)) {
            for (long i = first; ; i++) {
                dao.upsert(Entry.value(key(i), value(i), putTimestamp(i)));
                out.println("P " + i);
                out.flush();
                if (i % 10 == 9) {
                    long deleted = i - 5;
                    dao.upsert(Entry.tombstone(key(deleted), deleteTimestamp(deleted)));
                    out.println("D " + deleted);
                    out.flush();
                }
            }
        }
    }

    /**
     * Applies {@code compactionStyle=SIZE_TIERED|LEVELED} (leveled with tiny tables and levels, so that
     * compactions run all the time), {@code compactionTrigger=N} and {@code compression=NONE|LZ4|ZSTD} to
     * {@code builder}.
     */
    static DaoOptions.Builder applyOptions(DaoOptions.Builder builder, List<String> options) {
        for (String option : options) {
            String[] nameValue = option.split("=", 2);
            switch (nameValue[0]) {
                case "compactionStyle":
                    builder.compactionStyle(CompactionStyle.valueOf(nameValue[1]))
                            .targetTableBytes(8 << 10).levelBaseBytes(16 << 10);
                    break;
                case "compactionTrigger":
                    builder.compactionTrigger(Integer.parseInt(nameValue[1]));
                    break;
                case "compression":
                    builder.compression(Compression.valueOf(nameValue[1]));
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + option);
            }
        }
        return builder;
    }

    /** Whether the key of {@code index} is deleted after a later put (see the class comment). */
    static boolean isDeletedAfterPut(long index) {
        return index % 10 == 4;
    }

    static byte[] key(long index) {
        return String.format("crash-%012d", index).getBytes(StandardCharsets.US_ASCII);
    }

    /** Parses a key written by {@link #key(long)}, or returns -1 if it is not one. */
    static long indexOf(byte[] key) {
        String text = new String(key, StandardCharsets.US_ASCII);
        if (key.length != 18 || !text.startsWith("crash-")) {
            return -1;
        }
        try {
            return Long.parseLong(text.substring(6));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A value of 0..1023 bytes determined by the index, so the parent can check every byte. */
    static byte[] value(long index) {
        SplittableRandom random = new SplittableRandom(index * 0x9E3779B97F4A7C15L);
        byte[] value = new byte[random.nextInt(1024)];
        random.nextBytes(value);
        return value;
    }

    static long putTimestamp(long index) {
        return 2 * index + 1;
    }

    static long deleteTimestamp(long index) {
        return 2 * (index + 5) + 2;
    }
}
