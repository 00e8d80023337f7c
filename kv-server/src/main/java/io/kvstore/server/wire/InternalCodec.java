package io.kvstore.server.wire;

import io.kvstore.cluster.ReplicaOverloadedException;
import io.kvstore.cluster.internal.EntryCodec;
import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Base64;

/**
 * The node-to-node route, both directions of every request and answer: {@link io.kvstore.server.internode.HttpReplica} encodes
 * requests and decodes answers with it, {@link io.kvstore.server.http.InternalHandler} decodes requests and encodes answers.
 * It carries what the public protocol hides: the exact key bytes (base64url in {@code key}), the
 * write's timestamp ({@code ts}), the tombstone flag and a value's absolute expiry ({@code exp},
 * milliseconds since the epoch; absent for a value that never expires), by {@link EntryCodec}'s convention.
 * A node serves it from its own store only; it is never proxied again.
 *
 * <pre>
 * GET    /internal/v0/entity?key=K        200 + value, headers X-Kv-Timestamp, X-Kv-Tombstone,
 *                                         X-Kv-Expires (expiring values only); 404 if absent
 * PUT    /internal/v0/entity?key=K&amp;ts=T[&amp;exp=E]   body = value  -> 201
 * DELETE /internal/v0/entity?key=K&amp;ts=T                      -> 202
 * GET    /internal/v0/ping                                    -> 204 (failure detection)
 * GET    /internal/v0/entities?start=S[&amp;end=E]  200, this node's versions of [S, E) as {@link RangeFrames}
 * </pre>
 *
 * <p>The batched routes, several reads or writes in one request, are {@link BatchCodec}'s. Requests carry
 * the sender's map epoch ({@link Headers#EPOCH}) and so do the answers to the entity and batched routes;
 * a replica whose newer map moved a key since the request's epoch answers {@link #STALE_EPOCH}.
 */
public final class InternalCodec {
    /** 421 Misdirected Request: the replica's map, of the answer's epoch, moved the key since the request's. */
    public static final int STALE_EPOCH = 421;
    static final String KEY_PARAM = "key";
    public static final String TIMESTAMP_PARAM = "ts";
    public static final String EXPIRY_PARAM = "exp";
    public static final String START_PARAM = "start";
    public static final String END_PARAM = "end";
    private static final byte[] EMPTY = new byte[0];

    private InternalCodec() {
    }

    // ---- requests

    /** The URI reading {@code key}; base64url needs no further escaping. */
    public static String readUri(byte[] key) {
        return Routes.INTERNAL_ENTITY + '?' + KEY_PARAM + '=' + encodeKey(key);
    }

    /** The URI writing {@code entry}: its key, timestamp and, for an expiring value, its expiry. */
    public static String writeUri(Entry entry) {
        String uri = readUri(entry.key()) + '&' + TIMESTAMP_PARAM + '=' + entry.timestamp();
        return carriesExpiry(entry) ? uri + '&' + EXPIRY_PARAM + '=' + entry.expiresAtMillis() : uri;
    }

    /** PUT for a value, DELETE for a tombstone. */
    public static HttpMethod writeMethod(Entry entry) {
        return entry.isTombstone() ? HttpMethod.DELETE : HttpMethod.PUT;
    }

    /** The key of a request, from its query. @throws IllegalArgumentException if missing or not base64url */
    public static byte[] requestKey(String query) {
        String encoded = QueryParameters.text(query, KEY_PARAM);
        if (encoded == null || encoded.isEmpty()) {
            throw new IllegalArgumentException("missing " + KEY_PARAM);
        }
        return decodeKey(encoded);
    }

    /**
     * The entry a write request carries: {@code value} for a PUT, a tombstone for a DELETE.
     *
     * @throws IllegalArgumentException if the timestamp is missing, not a number or negative, or the
     *     expiry is not a positive number
     */
    public static Entry requestEntry(HttpMethod method, byte[] key, String query, byte[] value) {
        long timestamp = parseTimestamp(QueryParameters.text(query, TIMESTAMP_PARAM));
        if (method == HttpMethod.DELETE) {
            return entry(key, true, timestamp, null, value, EXPIRY_PARAM);
        }
        return entry(key, false, timestamp, QueryParameters.text(query, EXPIRY_PARAM), value, EXPIRY_PARAM);
    }

    // ---- answers

    /** Answers a read: 404 when absent, else 200 with the timestamp, the tombstone flag and the value. */
    public static void answerRead(HttpServerResponse response, Entry entry) {
        if (entry == null) {
            response.setStatusCode(404).end();
            return;
        }
        response.setStatusCode(200);
        if (carriesExpiry(entry)) {
            response.putHeader(Headers.EXPIRES, Long.toString(entry.expiresAtMillis()));
        }
        response.putHeader(Headers.TIMESTAMP, Long.toString(entry.timestamp()))
                .putHeader(Headers.TOMBSTONE, entry.isTombstone() ? "true" : "false")
                .end(entry.isTombstone() ? Buffer.buffer() : Buffer.buffer(entry.value()));
    }

    /** The status acknowledging a write: 201 for a value, 202 for a tombstone. */
    public static int writeStatus(Entry entry) {
        return entry.isTombstone() ? 202 : 201;
    }

    /**
     * The version a read answer carries, or {@code null} for 404.
     *
     * @throws IllegalStateException for any other status or a missing timestamp
     */
    public static Entry readAnswer(byte[] key, HttpResponse<Buffer> response, String node) {
        if (response.statusCode() == 404) {
            return null;
        }
        expect(response, 200, "GET", node);
        String timestamp = response.getHeader(Headers.TIMESTAMP);
        if (timestamp == null) {
            throw new IllegalStateException("GET " + node + Routes.INTERNAL_ENTITY + " answered without " + Headers.TIMESTAMP);
        }
        long parsed;
        try {
            parsed = Decimal.parse(timestamp, Headers.TIMESTAMP);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("GET " + node + Routes.INTERNAL_ENTITY + " answered " + e.getMessage(), e);
        }
        Buffer body = response.body();
        try {
            return entry(key, "true".equals(response.getHeader(Headers.TOMBSTONE)), parsed,
                    response.getHeader(Headers.EXPIRES), body == null ? EMPTY : body.getBytes(), Headers.EXPIRES);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("GET " + node + Routes.INTERNAL_ENTITY + " answered " + e.getMessage(), e);
        }
    }

    /**
     * @throws ReplicaOverloadedException if the replica refused the write for want of capacity (503)
     * @throws IllegalStateException unless the answer acknowledges the write of {@code entry}
     */
    public static void checkWriteAnswer(Entry entry, HttpResponse<Buffer> response, String node) {
        expect(response, writeStatus(entry), writeMethod(entry).name(), node);
    }

    private static void expect(HttpResponse<Buffer> response, int status, String method, String node) {
        if (response.statusCode() == 503 && status != 503) {
            throw new ReplicaOverloadedException(method + " " + node + Routes.INTERNAL_ENTITY + " answered 503: overloaded");
        }
        if (response.statusCode() != status) {
            // A refusal's reason (a 409 names the two maps) is short; anything else is left out.
            String body = response.statusCode() == 409 ? response.bodyAsString() : null;
            throw new IllegalStateException(method + " " + node + Routes.INTERNAL_ENTITY + " answered "
                    + response.statusCode() + " instead of " + status + (body == null ? "" : ": " + body.strip()));
        }
    }

    /** The internal range route for {@code [from, to)}, {@code to} null for an open end. */
    public static String rangeUri(byte[] from, byte[] to) {
        String uri = Routes.INTERNAL_ENTITIES + '?' + START_PARAM + '=' + encodeKey(from);
        return to == null ? uri : uri + '&' + END_PARAM + '=' + encodeKey(to);
    }

    // ---- fields

    /** Whether {@code entry}'s text form has an expiry: an expiring value's only. */
    private static boolean carriesExpiry(Entry entry) {
        return EntryCodec.carriesExpiry(EntryCodec.kind(entry));
    }

    /**
     * The entry of the fields of a text form: a tombstone, or a value that expires if {@code expiry} is
     * present (read as parameter or header {@code expiryName}).
     */
    private static Entry entry(byte[] key, boolean tombstone, long timestamp, String expiry, byte[] value,
                               String expiryName) {
        if (tombstone) {
            return EntryCodec.entry(key, EntryCodec.TOMBSTONE, timestamp, Entry.NEVER, null);
        }
        long expiresAtMillis = parseExpiry(expiry, expiryName);
        byte kind = expiry == null ? EntryCodec.VALUE : EntryCodec.EXPIRING_VALUE;
        return EntryCodec.entry(key, kind, timestamp, expiresAtMillis, value);
    }

    public static String encodeKey(byte[] key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key);
    }

    /** @throws IllegalArgumentException if {@code key} is not base64url */
    public static byte[] decodeKey(String key) {
        return Base64.getUrlDecoder().decode(key);
    }

    /**
     * A value's expiry, {@link Entry#NEVER} when {@code value} is absent.
     *
     * @throws IllegalArgumentException if it is present and not a positive decimal
     */
    public static long parseExpiry(String value, String name) {
        if (value == null) {
            return Entry.NEVER;
        }
        long expiresAtMillis = Decimal.parse(value, name);
        if (EntryCodec.expiryRefusal(expiresAtMillis) != null) {
            throw new IllegalArgumentException("non-positive " + name + " " + expiresAtMillis);
        }
        return expiresAtMillis;
    }

    /** @throws IllegalArgumentException if the timestamp is missing or not a non-negative decimal */
    public static long parseTimestamp(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing " + TIMESTAMP_PARAM);
        }
        return Decimal.parse(value, TIMESTAMP_PARAM);
    }
}
