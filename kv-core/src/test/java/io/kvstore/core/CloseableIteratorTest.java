package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

class CloseableIteratorTest {
    @Test
    void theEmptyIteratorHasNothingAndClosesAnyNumberOfTimes() {
        CloseableIterator<Entry> empty = CloseableIterator.empty();
        assertFalse(empty.hasNext());
        assertThrows(NoSuchElementException.class, empty::next);
        empty.close();
        empty.close();
        assertFalse(empty.hasNext());
    }
}
