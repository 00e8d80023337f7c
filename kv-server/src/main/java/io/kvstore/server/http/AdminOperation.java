package io.kvstore.server.http;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of a long admin operation (a repair, a cleanup) as an operator follows it, in the shape of a
 * membership change's entry in {@code GET /v0/admin/changes}: its id, status and reason, the parts it
 * set out to do and has done, the keys and bytes it has handled so far and, where the node knows one
 * beforehand, the total they grow to (docs/PROTOCOL.md, "Following a repair or a cleanup"). Counters
 * are updated from the threads doing the work; {@link #toJson} reads them as they are.
 */
public final class AdminOperation {
    private final long id;
    private final String operation;
    private final String node;
    private final Instant startedAt = Instant.now();
    private final AtomicLong parts = new AtomicLong();
    private final AtomicLong partsDone = new AtomicLong();
    private final AtomicLong keysScanned = new AtomicLong();
    private final AtomicLong keysDone = new AtomicLong();
    private final AtomicLong bytesDone = new AtomicLong();
    private volatile long bytesTotal = -1;
    private volatile long keysTotal = -1;
    private volatile String status = "running";
    private volatile Instant finishedAt;
    private volatile String reason;
    private volatile JsonObject result;

    AdminOperation(long id, String operation, String node) {
        this.id = id;
        this.operation = operation;
        this.node = node;
    }

    public long id() {
        return id;
    }

    /** The operation is to do {@code count} parts (a repair's exchanges; a cleanup's one rewrite). */
    public void planned(long count) {
        parts.set(count);
    }

    public void partDone() {
        partsDone.incrementAndGet();
    }

    /** Keys read to decide what to do: a repair's tree keys, a cleanup's keys examined. */
    public void scanned(long keys) {
        keysScanned.addAndGet(keys);
    }

    /** Keys acted on: a repair's entries copied, a cleanup's keys removed; {@code bytes} of them, if known. */
    public void done(long keys, long bytes) {
        keysDone.addAndGet(keys);
        bytesDone.addAndGet(bytes);
    }

    /** What the work reads in all, as the node estimates it when it starts. */
    public void bytesTotal(long bytes) {
        bytesTotal = bytes;
    }

    /** The keys the work examines in all, as the node estimates it when it starts. */
    public void keysTotal(long keys) {
        keysTotal = keys;
    }

    /** It ended as planned; {@code summary} is what the route that started it answers. */
    public void succeeded(JsonObject summary) {
        end("done", null, summary);
    }

    /** It failed for {@code why}; {@code summary}, if any, says what it did before. */
    public void failed(String why, JsonObject summary) {
        end("failed", why, summary);
    }

    public boolean running() {
        return finishedAt == null;
    }

    private synchronized void end(String how, String why, JsonObject summary) {
        if (finishedAt != null) {
            return;
        }
        reason = why;
        result = summary;
        status = how;
        finishedAt = Instant.now();
    }

    /** The entry {@code GET /v0/admin/repair} and {@code GET /v0/admin/cleanup} answer. */
    public synchronized JsonObject toJson() {
        JsonObject json = new JsonObject().put("id", id).put("operation", operation).put("node", node)
                .put("status", status).put("parts", parts.get()).put("partsDone", partsDone.get())
                .put("keysScanned", keysScanned.get()).put("keysDone", keysDone.get()).put("bytesDone", bytesDone.get())
                .put("bytesTotal", bytesTotal < 0 ? null : bytesTotal).put("keysTotal", keysTotal < 0 ? null : keysTotal)
                .put("startedAt", startedAt.toString());
        if (finishedAt != null) {
            json.put("finishedAt", finishedAt.toString());
        }
        if (reason != null) {
            json.put("reason", reason);
        }
        if (result != null) {
            json.put("result", result);
        }
        return json;
    }
}
