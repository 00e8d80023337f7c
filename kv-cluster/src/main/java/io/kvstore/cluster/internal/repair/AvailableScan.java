package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.QuarantinedInterval;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A scan of {@code [from, to)} that leaves out the key intervals the store refuses because a table of
 * them was damaged ({@link Dao#health()}): a repair scan of a node with such an interval lists none of
 * its keys, so its peers find them missing and send theirs, instead of the whole exchange failing on
 * the refusal. The gaps between the intervals are scanned one after another, each opened when the
 * previous one ends; an interval quarantined meanwhile fails the scan as the store's own would.
 */
final class AvailableScan implements CloseableIterator<Entry> {
    private final Dao dao;
    /** The sub-ranges still to scan, {@code {from, to}} each, in key order. */
    private final List<byte[][]> gaps;
    private int next;
    private CloseableIterator<Entry> current;

    private AvailableScan(Dao dao, List<byte[][]> gaps) {
        this.dao = dao;
        this.gaps = gaps;
    }

    /** The entries of {@code [from, to)} ({@code null} bounds open) outside the intervals {@code dao} refuses. */
    static CloseableIterator<Entry> of(Dao dao, byte[] from, byte[] to) throws IOException {
        List<QuarantinedInterval> refused = new ArrayList<>(dao.health().quarantined());
        if (refused.isEmpty()) {
            return dao.scan(from, to);
        }
        refused.sort(Comparator.comparing(QuarantinedInterval::from, AvailableScan::compareLow));
        List<byte[][]> gaps = new ArrayList<>();
        byte[] start = from;
        boolean open = true; // start is below +inf
        for (QuarantinedInterval interval : refused) {
            if (!open) {
                break;
            }
            if (!interval.overlaps(start, to)) {
                continue;
            }
            byte[] low = interval.from();
            if (low != null && (start == null || Bytes.compare(start, low) < 0)) {
                gaps.add(new byte[][] {start, low});
            }
            byte[] high = interval.to();
            if (high == null) {
                open = false;
            } else if (start == null || Bytes.compare(high, start) > 0) {
                start = high;
            }
        }
        if (open && (to == null || start == null || Bytes.compare(start, to) < 0)) {
            gaps.add(new byte[][] {start, to});
        }
        return new AvailableScan(dao, gaps);
    }

    /** Lower bounds in key order, {@code null} (no lower end) first. */
    private static int compareLow(byte[] a, byte[] b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return Bytes.compare(a, b);
    }

    @Override
    public boolean hasNext() {
        while (current == null || !current.hasNext()) {
            if (current != null) {
                current.close();
                current = null;
            }
            if (next == gaps.size()) {
                return false;
            }
            byte[][] gap = gaps.get(next++);
            try {
                current = dao.scan(gap[0], gap[1]);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return true;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
            current = null;
        }
        next = gaps.size();
    }
}
