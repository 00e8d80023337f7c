package io.kvstore.cluster.internal.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kvstore.core.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SegmentTreeTest {

    private static byte[] key(int i) {
        return ("key" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void hashesDoNotDependOnTheOrderEntriesArriveIn() {
        Random random = new Random(Seeds.seed("SegmentTreeTest.order"));
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            order.add(i);
        }
        SegmentTree sorted = new SegmentTree(8);
        for (int i : order) {
            sorted.add(key(i), i * 7L, i % 5 == 0, 0);
        }
        Collections.shuffle(order, random);
        SegmentTree shuffled = new SegmentTree(8);
        for (int i : order) {
            shuffled.add(key(i), i * 7L, i % 5 == 0, 0);
        }
        sorted.seal();
        shuffled.seal();
        for (int level = 0; level <= 8; level++) {
            for (int index = 0; index < 1 << level; index++) {
                assertEquals(sorted.hash(level, index), shuffled.hash(level, index));
            }
        }
    }

    @Test
    void aChangedTimestampOrTombstoneChangesItsSegmentAndTheRootOnly() {
        SegmentTree base = tree(1000, -1, 0, false);
        for (SegmentTree changed : List.of(tree(1000, 42, 1, false), tree(1000, 42, 0, true))) {
            assertNotEquals(base.hash(0, 0), changed.hash(0, 0));
            int segment = SegmentTree.segmentOf(key(42), 10);
            for (int index = 0; index < 1 << 10; index++) {
                if (index == segment) {
                    assertNotEquals(base.hash(10, index), changed.hash(10, index));
                } else {
                    assertEquals(base.hash(10, index), changed.hash(10, index), "segment " + index);
                }
            }
        }
    }

    @Test
    void anotherValueOfTheSameTimestampChangesTheRoot() {
        SegmentTree one = new SegmentTree(10);
        SegmentTree other = new SegmentTree(10);
        for (int i = 0; i < 1000; i++) {
            one.add(key(i), i, false, 31L * i);
            other.add(key(i), i, false, i == 500 ? -1 : 31L * i);
        }
        one.seal();
        other.seal();
        assertNotEquals(one.hash(0, 0), other.hash(0, 0));
    }

    @Test
    void aMissingEntryChangesTheRoot() {
        SegmentTree full = tree(500, -1, 0, false);
        SegmentTree partial = new SegmentTree(10);
        for (int i = 0; i < 500; i++) {
            if (i != 99) {
                partial.add(key(i), i, false, 0);
            }
        }
        partial.seal();
        assertNotEquals(full.hash(0, 0), partial.hash(0, 0));
    }

    @Test
    void refusesBadDepthsLevelsAndIndexes() {
        assertThrows(IllegalArgumentException.class, () -> new SegmentTree(0));
        assertThrows(IllegalArgumentException.class, () -> new SegmentTree(SegmentTree.MAX_DEPTH + 1));
        SegmentTree tree = tree(10, -1, 0, false);
        assertThrows(IllegalArgumentException.class, () -> tree.hash(11, 0));
        assertThrows(IllegalArgumentException.class, () -> tree.hash(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> tree.hash(3, 8));
        assertThrows(IllegalArgumentException.class, () -> tree.hash(3, -1));
    }

    /** Keys 0..n-1 at timestamp i, with key {@code changed} shifted by {@code delta} or made a tombstone. */
    private static SegmentTree tree(int n, int changed, long delta, boolean tombstone) {
        SegmentTree tree = new SegmentTree(10);
        for (int i = 0; i < n; i++) {
            tree.add(key(i), i + (i == changed ? delta : 0), i == changed && tombstone, 0);
        }
        tree.seal();
        return tree;
    }
}
