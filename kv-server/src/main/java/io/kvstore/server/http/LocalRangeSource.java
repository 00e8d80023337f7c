package io.kvstore.server.http;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.server.internode.RangeSource;
import io.vertx.core.Context;
import java.util.ArrayDeque;

/**
 * This node's own store as a {@link RangeSource}: the iterator is read on a worker thread, one batch
 * at a time, and closed there; the batch is handed to the event loop.
 */
final class LocalRangeSource implements RangeSource {
    private static final int BATCH_ENTRIES = 256;
    private static final int BATCH_BYTES = 256 << 10;

    private final String node;
    private final RangeHandler ranges;
    private final Context context;
    private final byte[] from;
    private final byte[] to;
    private ArrayDeque<Entry> buffered = new ArrayDeque<>();
    private CloseableIterator<Entry> entries;
    private Listener listener;
    private boolean reading;
    private boolean ended;
    private boolean closed;

    LocalRangeSource(String node, RangeHandler ranges, Context context, byte[] from, byte[] to) {
        this.node = node;
        this.ranges = ranges;
        this.context = context;
        this.from = from;
        this.to = to;
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        reading = true;
        context.executeBlocking(() -> ranges.open(from, to), false).onComplete(opened -> {
            reading = false;
            if (opened.failed()) {
                fail(opened.cause());
                return;
            }
            entries = opened.result();
            if (closed) {
                closeIterator();
                return;
            }
            demand();
        });
    }

    @Override
    public Entry peek() {
        return buffered.peek();
    }

    @Override
    public Entry poll() {
        return buffered.poll();
    }

    @Override
    public boolean ended() {
        return ended && buffered.isEmpty();
    }

    @Override
    public void demand() {
        if (reading || ended || closed || entries == null || !buffered.isEmpty()) {
            return;
        }
        reading = true;
        context.executeBlocking(this::readBatch, false).onComplete(read -> {
            reading = false;
            if (closed) {
                closeIterator();
                return;
            }
            if (read.failed()) {
                fail(read.cause());
                return;
            }
            buffered = read.result();
            if (buffered.isEmpty()) {
                ended = true;
                closeIterator();
            }
            listener.ready(this);
        });
    }

    /** Worker thread: the next batch, empty at the end of the range. */
    private ArrayDeque<Entry> readBatch() {
        ArrayDeque<Entry> batch = new ArrayDeque<>();
        int bytes = 0;
        while (batch.size() < BATCH_ENTRIES && bytes < BATCH_BYTES && entries.hasNext()) {
            Entry entry = entries.next();
            batch.add(entry);
            bytes += entry.key().length + (entry.isTombstone() ? 0 : entry.value().length);
        }
        return batch;
    }

    private void fail(Throwable cause) {
        close();
        listener.failed(this, cause);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffered.clear();
        if (!reading) {
            closeIterator();
        }
    }

    private void closeIterator() {
        CloseableIterator<Entry> open = entries;
        entries = null;
        if (open != null) {
            context.executeBlocking(() -> ranges.closeQuietly(open), false);
        }
    }
}
