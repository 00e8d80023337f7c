package io.kvstore.server;

import java.util.Base64;

/**
 * The node-to-node route. It carries what the public protocol hides: the exact key bytes
 * (base64url in {@code key}), the write's timestamp ({@code ts}) and the tombstone flag. A node
 * serves it from its own store only; it is never proxied again.
 *
 * <pre>
 * GET    /internal/v0/entity?key=K        200 + value, headers X-Kv-Timestamp, X-Kv-Tombstone; 404 if absent
 * PUT    /internal/v0/entity?key=K&amp;ts=T   body = value        -> 201
 * DELETE /internal/v0/entity?key=K&amp;ts=T                      -> 202
 * GET    /internal/v0/entities?start=S[&amp;end=E]  200, this node's versions of [S, E) as {@link RangeFrames}
 * </pre>
 */
final class InternalProtocol {
    static final String PATH = "/internal/v0/entity";
    static final String KEY_PARAM = "key";
    static final String TIMESTAMP_PARAM = "ts";
    static final String TIMESTAMP_HEADER = "X-Kv-Timestamp";
    static final String TOMBSTONE_HEADER = "X-Kv-Tombstone";
    static final String RANGE_PATH = "/internal/v0/entities";
    static final String START_PARAM = "start";
    static final String END_PARAM = "end";

    private InternalProtocol() {
    }

    /** The internal range route for {@code [from, to)}, {@code to} null for an open end. */
    static String rangeUri(byte[] from, byte[] to) {
        String uri = RANGE_PATH + '?' + START_PARAM + '=' + encodeKey(from);
        return to == null ? uri : uri + '&' + END_PARAM + '=' + encodeKey(to);
    }

    static String encodeKey(byte[] key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key);
    }

    /** @throws IllegalArgumentException if {@code key} is not base64url */
    static byte[] decodeKey(String key) {
        return Base64.getUrlDecoder().decode(key);
    }

    /** @throws IllegalArgumentException if the timestamp is missing, not a number or negative */
    static long parseTimestamp(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing " + TIMESTAMP_PARAM);
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad " + TIMESTAMP_PARAM + " '" + value + "'");
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("negative " + TIMESTAMP_PARAM + " " + timestamp);
        }
        return timestamp;
    }
}
