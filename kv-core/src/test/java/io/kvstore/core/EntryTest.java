package io.kvstore.core;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EntryTest {
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private static Entry value(String value, long timestamp) {
        return Entry.value(KEY, value.getBytes(StandardCharsets.UTF_8), timestamp);
    }

    /** Checks that {@code winner} wins over {@code loser} from both sides. */
    private static void assertWins(Entry winner, Entry loser) {
        assertTrue(Entry.compareVersions(winner, loser) > 0, winner + " over " + loser);
        assertTrue(Entry.compareVersions(loser, winner) < 0, winner + " over " + loser);
        assertSame(winner, Entry.newerOf(winner, loser));
        assertSame(winner, Entry.newerOf(loser, winner));
    }

    @Test
    void theHigherTimestampWinsWhateverTheKind() {
        assertWins(value("a", 2), value("z", 1));
        assertWins(value("a", 2), Entry.tombstone(KEY, 1));
        assertWins(Entry.tombstone(KEY, 2), value("z", 1));
        assertWins(value("a", 0), value("z", -1));
        assertWins(value("a", Long.MAX_VALUE), value("a", Long.MIN_VALUE));
    }

    @Test
    void atEqualTimestampsATombstoneWinsOverAnyValue() {
        assertWins(Entry.tombstone(KEY, 5), value("zzz", 5));
        assertWins(Entry.tombstone(KEY, 5), Entry.value(KEY, new byte[0], 5));
    }

    @Test
    void atEqualTimestampsTheLargerValueWinsAsUnsignedBytes() {
        assertWins(value("b", 5), value("a", 5));
        assertWins(value("ab", 5), value("a", 5));
        assertWins(value("a", 5), Entry.value(KEY, new byte[0], 5));
        assertWins(Entry.value(KEY, new byte[] {(byte) 0x80}, 5), Entry.value(KEY, new byte[] {0x7F}, 5));
        assertWins(Entry.value(KEY, new byte[] {(byte) 0xFF}, 5), Entry.value(KEY, new byte[] {0x00, 0x01}, 5));
    }

    @Test
    void atEqualTimestampsTheValueExpiringFirstWinsBeforeBytesCount() {
        assertWins(Entry.value(KEY, "a".getBytes(StandardCharsets.UTF_8), 5, 1000), value("z", 5));
        assertWins(Entry.value(KEY, "a".getBytes(StandardCharsets.UTF_8), 5, 1000),
                Entry.value(KEY, "z".getBytes(StandardCharsets.UTF_8), 5, 2000));
        assertWins(Entry.tombstone(KEY, 5), Entry.value(KEY, "z".getBytes(StandardCharsets.UTF_8), 5, 1000));
        assertWins(value("a", 6), Entry.value(KEY, "z".getBytes(StandardCharsets.UTF_8), 5, 1000));
        assertWins(Entry.value(KEY, "b".getBytes(StandardCharsets.UTF_8), 5, 1000),
                Entry.value(KEY, "a".getBytes(StandardCharsets.UTF_8), 5, 1000));
    }

    @Test
    void anExpiredValueIsATombstoneOfItsTimestamp() {
        Entry expiring = Entry.value(KEY, "v".getBytes(StandardCharsets.UTF_8), 5, 1000);
        assertTrue(expiring.expires());
        assertSame(expiring, expiring.asOf(999));
        assertEquals(Entry.tombstone(KEY, 5), expiring.asOf(1000));
        Entry plain = value("v", 5);
        assertSame(plain, plain.asOf(Long.MAX_VALUE - 1));
        assertEquals(Entry.NEVER, plain.expiresAtMillis());
        assertTrue(!plain.equals(expiring), "the expiry is part of the version");
    }

    @Test
    void theSameVersionTiesAndNewerOfKeepsTheFirst() {
        Entry a = value("same", 5);
        Entry b = value("same", 5);
        assertEquals(0, Entry.compareVersions(a, b));
        assertSame(a, Entry.newerOf(a, b));
        assertEquals(0, Entry.compareVersions(Entry.tombstone(KEY, 5), Entry.tombstone(KEY, 5)));
    }

    @Test
    void newerOfTakesNullForNoVersion() {
        Entry a = value("a", 1);
        assertSame(a, Entry.newerOf(a, null));
        assertSame(a, Entry.newerOf(null, a));
        assertNull(Entry.newerOf(null, null));
    }

    @Test
    void theHeadsOfTwoVersionsDecideAsTheWholeRuleDoesUnlessOnlyTheValuesCanTell() {
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        List<Entry> versions = new ArrayList<>();
        for (long timestamp : new long[] {1, 2}) {
            versions.add(Entry.tombstone(k, timestamp));
            versions.add(Entry.value(k, new byte[] {1}, timestamp));
            versions.add(Entry.value(k, new byte[] {2}, timestamp));
            versions.add(Entry.value(k, new byte[] {1}, timestamp, 50));
            versions.add(Entry.value(k, new byte[] {1}, timestamp, 60));
        }
        for (Entry a : versions) {
            for (Entry b : versions) {
                int heads = Entry.compareVersionHeads(a.timestamp(), a.isTombstone(), a.expiresAtMillis(),
                        b.timestamp(), b.isTombstone(), b.expiresAtMillis());
                int whole = Entry.compareVersions(a, b);
                boolean valuesTell = !a.isTombstone() && !b.isTombstone() && a.timestamp() == b.timestamp()
                        && a.expiresAtMillis() == b.expiresAtMillis();
                assertEquals(valuesTell ? 0 : Integer.signum(whole), Integer.signum(heads), a + " vs " + b);
            }
        }
    }
}
