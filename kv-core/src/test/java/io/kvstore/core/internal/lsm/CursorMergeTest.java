package io.kvstore.core.internal.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.MergeIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A compaction's in-place merge writes what a model of the tables says: per key the version
 * {@link Entry#compareVersions} ranks first, the newest table's on a tie; expired values as tombstones
 * and the tombstones a compaction may drop left out; and the same as the merge of entries as objects.
 */
class CursorMergeTest {
    private static final Compression[] CODECS = Compression.values();
    private static final String[] PREFIXES = {"", "u", "usertable:user", "a tenant of a long name/"};

    @TempDir
    Path dir;
    @RegisterExtension
    final TestTables tables = new TestTables(() -> dir);

    @Test
    void mergesAsTheModelOfItsTablesSays() throws IOException {
        long seed = System.nanoTime();
        System.out.println("CursorMergeTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 40; round++) {
            // Every key of a round begins with this, so merges skip shared prefixes of every length in turn.
            String prefix = PREFIXES[round % PREFIXES.length];
            SsTable[] newestFirst = new SsTable[1 + random.nextInt(6)];
            List<TreeMap<byte[], Entry>> contents = new ArrayList<>();
            for (int t = 0; t < newestFirst.length; t++) {
                TreeMap<byte[], Entry> entries = randomEntries(random, prefix);
                contents.add(entries);
                newestFirst[t] = table(entries, CODECS[random.nextInt(CODECS.length)]);
            }
            long now = random.nextLong(1, 2_000);
            long dropBelow = random.nextLong(0, 2_000);
            String context = "seed " + seed + ", round " + round + ", prefix '" + prefix + "', now " + now
                    + ", drop below " + dropBelow;

            assertEquals(model(contents, Long.MIN_VALUE, Long.MIN_VALUE), written(new CursorMerge(newestFirst),
                    Long.MIN_VALUE, Long.MIN_VALUE), context);
            assertEquals(model(contents, now, dropBelow), written(new CursorMerge(newestFirst), now, dropBelow), context);
            try (MergeIterator objects = new MergeIterator(passing(newestFirst))) {
                assertEquals(model(contents, now, dropBelow), written(SortedEntries.of(objects), now, dropBelow), context);
            }
        }
    }

    @Test
    void theSharedPrefixIsThatOfTheSmallestAndTheLargestKeyOfAllTables() throws IOException {
        SsTable a = table(entries("user:b", "user:bz", "user:c"), Compression.NONE);
        SsTable b = table(entries("user:a1", "user:a2"), Compression.LZ4);
        SsTable c = table(entries("user:ab", "user:cd"), Compression.ZSTD);
        assertEquals("user:".length(), CursorMerge.sharedPrefixLength(new SsTable[] {a, b, c}));
        assertEquals("user:".length(), CursorMerge.sharedPrefixLength(new SsTable[] {a}));
        assertEquals("user:a".length(), CursorMerge.sharedPrefixLength(new SsTable[] {b}));
        SsTable whole = table(entries("user", "user:x"), Compression.NONE);
        assertEquals("user".length(), CursorMerge.sharedPrefixLength(new SsTable[] {whole, a}));
        SsTable other = table(entries("admin:a"), Compression.NONE);
        assertEquals(0, CursorMerge.sharedPrefixLength(new SsTable[] {a, other}));
        SsTable one = table(entries("only"), Compression.NONE);
        assertEquals("only".length(), CursorMerge.sharedPrefixLength(new SsTable[] {one}));
    }

    private static TreeMap<byte[], Entry> entries(String... keys) {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        for (String key : keys) {
            entries.put(key.getBytes(), Entry.value(key.getBytes(), new byte[] {1}, 1));
        }
        return entries;
    }

    /**
     * Up to 300 entries over 200 keys of {@code prefix} and 1 to 12 bytes (many shorter than 8, many
     * sharing their first 8), timestamps from a small range so versions tie, tombstones, empty values
     * and values that expire.
     */
    private static TreeMap<byte[], Entry> randomEntries(SplittableRandom random, String prefix) {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        int count = 1 + random.nextInt(300);
        for (int i = 0; i < count; i++) {
            int k = random.nextInt(200);
            byte[] key = (prefix + (k % 3 == 0 ? "k" + k : "longkey:" + k)).getBytes();
            long timestamp = random.nextLong(1, 1_000);
            int kind = random.nextInt(8);
            byte[] value = new byte[kind == 1 ? 0 : random.nextInt(3)];
            random.nextBytes(value);
            entries.put(key, kind == 0 ? Entry.tombstone(key, timestamp)
                    : kind == 2 ? Entry.value(key, value, timestamp, random.nextLong(1, 2_000))
                    : Entry.value(key, value, timestamp));
        }
        return entries;
    }

    /**
     * The winner of each key over {@code contents} (newest first), as visible at {@code now}, without
     * tombstones older than {@code dropBelow}.
     */
    private static List<Entry> model(List<TreeMap<byte[], Entry>> contents, long now, long dropBelow) {
        TreeMap<byte[], Entry> winners = new TreeMap<>(Bytes.ORDER);
        for (TreeMap<byte[], Entry> table : contents) {
            for (Map.Entry<byte[], Entry> e : table.entrySet()) {
                winners.put(e.getKey(), Entry.newerOf(winners.get(e.getKey()), e.getValue()));
            }
        }
        List<Entry> expected = new ArrayList<>();
        for (Entry winner : winners.values()) {
            Entry visible = winner.asOf(now);
            if (!(visible.isTombstone() && visible.timestamp() < dropBelow)) {
                expected.add(visible);
            }
        }
        return expected;
    }

    /** What a compaction at {@code now} writes of {@code entries}, dropping tombstones older than {@code dropBelow}. */
    private List<Entry> written(SortedEntries entries, long now, long dropBelow) throws IOException {
        SsTable output = tables.keep(TableBuilder.build(dir, tables.nextNumber(), entries, 1_000, options(Compression.LZ4),
                BlockCache.disabled(), now, timestamp -> timestamp < dropBelow, () -> false, null).table());
        List<Entry> read = new ArrayList<>();
        if (output != null) {
            try (CloseableIterator<Entry> it = output.iterator(null, null)) {
                it.forEachRemaining(read::add);
            }
        }
        return read;
    }

    private SsTable table(TreeMap<byte[], Entry> entries, Compression compression) throws IOException {
        return tables.write(entries.values().iterator(), entries.size(), options(compression));
    }

    private DaoOptions options(Compression compression) {
        return DaoOptions.builder(dir).compression(compression).blockSizeBytes(256).build();
    }

    private static List<CloseableIterator<Entry>> passing(SsTable[] tables) {
        List<CloseableIterator<Entry>> sources = new ArrayList<>();
        for (SsTable table : tables) {
            sources.add(table.passingIterator(null, null));
        }
        return sources;
    }
}
