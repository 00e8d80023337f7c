package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.InMemoryDao;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the bytes of a hint record: hints written by one version of the node are replayed by the next,
 * so the layout of the hint store must never change.
 */
class HintRecordGoldenTest {
    private static final String NODE = "http://b:2";
    private static final HexFormat HEX = HexFormat.of();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final List<Entry> ENTRIES = List.of(
            Entry.value(b("k1"), b("v1"), 0x0102030405060708L),
            Entry.tombstone(b("k2"), 2),
            Entry.value(b("k3"), new byte[0], 3),
            Entry.value(b("k4"), b("ttl"), 4, 1_700_000_000_000L));

    /** Stored key and value of each hint, in the store's key order. */
    private static final List<String> GOLDEN = List.of(
            "687474703a2f2f623a32000000000000000002" + "6b32 => 010000000000000002",
            "687474703a2f2f623a32000000000000000003" + "6b33 => 000000000000000003",
            "687474703a2f2f623a32000000000000000004" + "6b34 => 0200000000000000040000018bcfe5680074746c",
            "687474703a2f2f623a32000102030405060708" + "6b31 => 0001020304050607087631");

    @Test
    void hintRecordsKeepTheirBytes() throws IOException {
        InMemoryDao dao = new InMemoryDao();
        try (HintStore store = new HintStore(dao, new HybridClock())) {
            for (Entry entry : ENTRIES) {
                store.append(NODE, entry);
            }
            List<String> stored = new ArrayList<>();
            try (CloseableIterator<Entry> all = dao.range(null, null)) {
                while (all.hasNext()) {
                    Entry record = all.next();
                    stored.add(HEX.formatHex(record.key()) + " => " + HEX.formatHex(record.value()));
                }
            }
            assertEquals(GOLDEN, stored);
        }
    }

    @Test
    void storedHintsComeBackAsTheEntriesKept() throws IOException {
        InMemoryDao dao = new InMemoryDao();
        try (HintStore store = new HintStore(dao, new HybridClock())) {
            for (Entry entry : ENTRIES) {
                store.append(NODE, entry);
            }
        }
        try (HintStore reopened = new HintStore(dao, new HybridClock())) {
            List<Entry> replayed = new ArrayList<>();
            for (Hint hint : reopened.oldest(NODE, Long.MAX_VALUE, 100)) {
                replayed.add(hint.entry);
            }
            assertEquals(List.of(ENTRIES.get(1), ENTRIES.get(2), ENTRIES.get(3), ENTRIES.get(0)), replayed);
        }
    }
}
