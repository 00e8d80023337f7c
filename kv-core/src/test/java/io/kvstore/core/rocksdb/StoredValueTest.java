package io.kvstore.core.rocksdb;

import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoredValueTest {
    private static final byte[] KEY = {'k'};

    @Test
    void layoutIsTimestampKindThenValue() {
        byte[] stored = StoredValue.encode(Entry.value(KEY, new byte[] {7, 8}, 0x0102030405060708L));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 0, 7, 8}, stored);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 1}, StoredValue.encode(Entry.tombstone(KEY, 0x0102030405060708L)));
    }

    @Test
    void roundTripsValuesTombstonesAndExtremeTimestamps() {
        long[] timestamps = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
        for (long ts : timestamps) {
            Entry value = Entry.value(KEY, new byte[] {0, (byte) 0xFF}, ts);
            assertEquals(value, StoredValue.decode(KEY, StoredValue.encode(value)));
            Entry empty = Entry.value(KEY, new byte[0], ts);
            assertEquals(empty, StoredValue.decode(KEY, StoredValue.encode(empty)));
            Entry tombstone = Entry.tombstone(KEY, ts);
            assertEquals(tombstone, StoredValue.decode(KEY, StoredValue.encode(tombstone)));
            assertEquals(ts, StoredValue.timestamp(StoredValue.encode(tombstone)));
        }
    }

    @Test
    void foreignValuesAreRejectedWithTheKey() {
        IllegalStateException shortValue = assertThrows(IllegalStateException.class,
                () -> StoredValue.decode(KEY, new byte[] {1, 2, 3}));
        assertTrue(shortValue.getMessage().contains("key k"), shortValue.getMessage());
        assertThrows(IllegalStateException.class, () -> StoredValue.decode(KEY, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 9}));
    }
}
