package io.kvstore.server.wire;

import io.kvstore.cluster.ReplicaOverloadedException;
import io.kvstore.core.Entry;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The batched internal routes, several replica calls to one node in one request ({@link io.kvstore.server.internode.RoundBatcher}),
 * both directions: {@link io.kvstore.server.internode.HttpReplica} encodes requests and decodes answers, {@link io.kvstore.server.http.InternalHandler}
 * decodes requests and encodes answers. Bodies are big-endian; keys and entries are encoded as in
 * {@link RepairProtocol}.
 *
 * <pre>
 * POST /internal/v0/writes   body = int count, entry*   -> 200, int count, outcome*
 *                            outcome = byte 0 (stored) | byte 1, reason
 * POST /internal/v0/reads    body = int count, key*     -> 200, int count, outcome*
 *                            outcome = byte 0 (absent) | byte 1, reason | byte 2, entry (the version held)
 * reason = int length, UTF-8 bytes
 * </pre>
 *
 * Each call is served on its own, by the rules of {@link Routes#INTERNAL_ENTITY}: one refused (a key or a
 * value over the node's limits, a timestamp too far ahead) leaves the others be. A body that cannot
 * be read whole is a 400 for the request, and nothing of it is applied. A node that predates a route
 * answers {@code 400 unknown path ...} ({@link #unknownRoute}).
 */
public final class BatchCodec {
    /**
     * Largest body a batched route reads: a batch's calls ({@link io.kvstore.server.internode.RoundBatcher#MAX_BATCH_BYTES}, one call
     * over) with room to spare, so that a node sending more does not fail on a node that sends less.
     */
    public static final int MAX_BODY_BYTES = 1 << 20;
    /** Bytes a write adds to a body besides its key and value: the lengths, timestamp and expiry. */
    private static final int ENTRY_OVERHEAD = 24;
    private static final byte DONE = 0;
    private static final byte REFUSED = 1;
    private static final byte VERSION = 2;
    /**
     * How a refusal's reason starts when the call was refused for want of capacity: the coordinator then
     * fails it as a {@link ReplicaOverloadedException}. A node of an older version reads it as any refusal.
     */
    public static final String OVERLOADED = "overloaded: ";

    private BatchCodec() {
    }

    // ---- requests

    public static Buffer writesBody(List<Entry> entries) {
        return RepairProtocol.entries(entries);
    }

    /** The bytes {@code entry} adds to a writes body. */
    public static int writeSize(Entry entry) {
        return entry.key().length + (entry.isTombstone() ? 0 : entry.value().length) + ENTRY_OVERHEAD;
    }

    /**
     * The entries of a writes body; keys may be as long as the body, for the caller to refuse one by one.
     *
     * @throws IllegalArgumentException if the body is malformed
     */
    public static List<Entry> writes(byte[] body) {
        return new RepairProtocol.Reader(body, "write batch", MAX_BODY_BYTES).entries();
    }

    public static Buffer readsBody(List<byte[]> keys) {
        return RepairProtocol.keys(keys);
    }

    /** The bytes {@code key} adds to a reads body. */
    public static int readSize(byte[] key) {
        return key.length + 4;
    }

    /**
     * The keys of a reads body, as long as the body allows, for the caller to refuse one by one.
     *
     * @throws IllegalArgumentException if the body is malformed
     */
    public static List<byte[]> reads(byte[] body) {
        return new RepairProtocol.Reader(body, "read batch", MAX_BODY_BYTES).keys(body.length / 4);
    }

    // ---- answers

    /** Builds an answer: its count, then one {@link #done}, {@link #refused} or {@link #version} per call, in order. */
    public static Buffer answer(int count) {
        return Buffer.buffer(4 + count * 16).appendInt(count);
    }

    /** A write stored, or a read that found nothing. */
    public static Buffer done(Buffer answer) {
        return answer.appendByte(DONE);
    }

    public static Buffer refused(Buffer answer, String reason) {
        byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        return answer.appendByte(REFUSED).appendInt(bytes.length).appendBytes(bytes);
    }

    /** The version a read found, a tombstone included. */
    public static Buffer version(Buffer answer, Entry entry) {
        return RepairProtocol.appendEntry(answer.appendByte(VERSION), entry);
    }

    /**
     * The outcome of each of {@code count} writes from a writes answer; a refused one is an
     * {@link IllegalStateException} with the node's reason.
     *
     * @throws IllegalStateException if the node did not answer 200 with {@code count} outcomes, or with a version
     */
    public static List<AsyncResult<Void>> writeOutcomes(int count, int status, Buffer answer, String node) {
        return outcomes(Routes.WRITES, count, status, answer, node, null);
    }

    /**
     * The outcome of each read of {@code keys} from a reads answer: the version found, {@code null} for
     * none; a refused one is an {@link IllegalStateException} with the node's reason.
     *
     * @throws IllegalStateException if the node did not answer 200 with one outcome per key, or with a
     *     version of another key
     */
    public static List<AsyncResult<Entry>> readOutcomes(List<byte[]> keys, int status, Buffer answer, String node) {
        return outcomes(Routes.READS, keys.size(), status, answer, node, (reader, i) -> {
            Entry entry = reader.entry();
            if (!Arrays.equals(entry.key(), keys.get(i))) {
                throw reader.malformed("a version of another key for read " + i);
            }
            return entry;
        });
    }

    /** Reads the version answering call {@code index}. */
    private interface VersionReader<R> {
        R read(RepairProtocol.Reader reader, int index);
    }

    /** {@code versions} null: the route answers no versions. */
    private static <R> List<AsyncResult<R>> outcomes(String path, int count, int status, Buffer answer, String node,
                                                      VersionReader<R> versions) {
        String route = "POST " + node + path;
        byte[] body = answer == null ? new byte[0] : answer.getBytes();
        if (status == 503) {
            throw new ReplicaOverloadedException(route + " answered 503: overloaded");
        }
        if (status != 200) {
            String reason = new String(body, StandardCharsets.UTF_8).strip();
            throw new IllegalStateException(route + " answered " + status + (reason.isEmpty() ? ""
                    : ": " + (reason.length() > 300 ? reason.substring(0, 300) + "..." : reason)));
        }
        RepairProtocol.Reader reader = new RepairProtocol.Reader(body, "answer", MAX_BODY_BYTES);
        List<AsyncResult<R>> outcomes = new ArrayList<>(count);
        try {
            int answered = reader.readInt();
            if (answered != count) {
                throw new IllegalStateException(route + " answered " + answered + " outcomes for " + count + " calls");
            }
            for (int i = 0; i < count; i++) {
                byte outcome = reader.take(1, "outcome")[0];
                if (outcome == DONE) {
                    outcomes.add(Future.succeededFuture());
                } else if (outcome == REFUSED) {
                    String reason = new String(reader.take(reader.readInt(), "reason"), StandardCharsets.UTF_8);
                    String refusal = route + " refused call " + i + ": " + reason;
                    outcomes.add(Future.failedFuture(reason.startsWith(OVERLOADED)
                            ? new ReplicaOverloadedException(refusal) : new IllegalStateException(refusal)));
                } else if (outcome == VERSION && versions != null) {
                    outcomes.add(Future.succeededFuture(versions.read(reader, i)));
                } else {
                    throw reader.malformed("outcome " + outcome);
                }
            }
            reader.end();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(route + " answered a " + e.getMessage(), e);
        }
        return outcomes;
    }

    /** Whether a node answered that it does not know the route of the request: it predates it. */
    public static boolean unknownRoute(int status, Buffer body) {
        return status == 400 && body != null && body.toString(StandardCharsets.UTF_8).startsWith("unknown path");
    }
}
