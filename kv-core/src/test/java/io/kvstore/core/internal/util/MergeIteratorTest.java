package io.kvstore.core.internal.util;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MergeIteratorTest {

    private static final class ListSource implements CloseableIterator<Entry> {
        private final Iterator<Entry> entries;
        boolean closed;

        ListSource(Entry... entries) {
            this.entries = List.of(entries).iterator();
        }

        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public Entry next() {
            return entries.next();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static Entry v(int key, String value, long ts) {
        return Entry.value(new byte[] {(byte) key}, value.getBytes(), ts);
    }

    private static List<Entry> drain(MergeIterator it) {
        List<Entry> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @Test
    void mergesSortedSourcesWithOneEntryPerKey() {
        MergeIterator it = new MergeIterator(List.of(
                new ListSource(v(1, "a", 1), v(0xF0, "z", 1)),
                new ListSource(v(2, "b", 1), v(3, "c", 1)),
                new ListSource(),
                new ListSource(v(0, "0", 1), v(3, "old", 0))));
        List<Entry> out = drain(it);
        assertEquals(5, out.size());
        int[] keys = {0, 1, 2, 3, 0xF0};
        for (int i = 0; i < keys.length; i++) {
            assertEquals(keys[i], out.get(i).key()[0] & 0xFF, "unsigned order");
        }
        assertArrayEquals("c".getBytes(), out.get(3).value());
        assertThrows(NoSuchElementException.class, it::next);
    }

    @Test
    void highestTimestampWinsWhateverTheSource() {
        MergeIterator it = new MergeIterator(List.of(
                new ListSource(v(1, "newest source, old ts", 5)),
                new ListSource(v(1, "middle source, new ts", 9)),
                new ListSource(Entry.tombstone(new byte[] {1}, 7))));
        assertArrayEquals("middle source, new ts".getBytes(), it.next().value());
        assertFalse(it.hasNext());
    }

    @Test
    void equalTimestampsGoToTheTombstoneWhateverTheSource() {
        MergeIterator it = new MergeIterator(List.of(
                new ListSource(Entry.tombstone(new byte[] {1}, 4)),
                new ListSource(v(1, "older write", 4)),
                new ListSource(v(1, "oldest write", 4))));
        assertTrue(it.next().isTombstone());
        assertFalse(it.hasNext());
    }

    @Test
    void equalTimestampsGoToTheLargerValueWhateverTheSource() {
        MergeIterator it = new MergeIterator(List.of(
                new ListSource(v(1, "a", 4)),
                new ListSource(v(1, "c", 4)),
                new ListSource(v(1, "b", 4))));
        assertArrayEquals("c".getBytes(), it.next().value());
        assertFalse(it.hasNext());
    }

    @Test
    void closeClosesEverySource() {
        ListSource a = new ListSource(v(1, "a", 1));
        ListSource b = new ListSource();
        MergeIterator it = new MergeIterator(List.of(a, b));
        it.close();
        assertTrue(a.closed && b.closed);
        assertFalse(it.hasNext());
    }
}
