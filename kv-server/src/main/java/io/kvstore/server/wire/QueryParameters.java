package io.kvstore.server.wire;

import java.nio.charset.StandardCharsets;

/**
 * Query parameters straight from the raw query string, percent-decoded to bytes (RFC 3986).
 *
 * <p>A key is the bytes the client percent-encoded, nothing else: no detour through a {@code String}
 * (which would fold every malformed UTF-8 sequence into U+FFFD, so {@code %FE} and {@code %FF} would
 * name the same key), and {@code +} is a plus sign, not a space (that is HTML form encoding; encode a
 * space as {@code %20}). Only the first occurrence of a parameter counts.
 */
public final class QueryParameters {
    private QueryParameters() {
    }

    /**
     * The percent-decoded bytes of parameter {@code name}, empty for {@code name=} or a bare {@code name},
     * {@code null} if absent.
     *
     * @throws IllegalArgumentException for a malformed escape ({@code %} not followed by two hex digits)
     *                                  or a character that was not sent as ASCII
     */
    public static byte[] bytes(String query, String name) {
        if (query == null) {
            return null;
        }
        int length = query.length();
        int start = 0;
        while (start <= length) {
            int end = query.indexOf('&', start);
            if (end < 0) {
                end = length;
            }
            int nameEnd = start + name.length();
            if (nameEnd <= end && query.startsWith(name, start) && (nameEnd == end || query.charAt(nameEnd) == '=')) {
                return decode(query, Math.min(nameEnd + 1, end), end, name);
            }
            start = end + 1;
        }
        return null;
    }

    /** {@link #bytes} read as UTF-8 text, for numeric parameters such as {@code ack}. */
    public static String text(String query, String name) {
        byte[] value = bytes(query, name);
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    private static byte[] decode(String query, int from, int to, String name) {
        // Every escape is checked before the output is sized by them: a stray '%' must be a 400, not an
        // array overrun.
        int escapes = 0;
        for (int i = from; i < to; i++) {
            if (query.charAt(i) == '%') {
                if (i + 2 >= to || hex(query.charAt(i + 1)) < 0 || hex(query.charAt(i + 2)) < 0) {
                    throw malformed(query, from, to, name);
                }
                escapes++;
                i += 2;
            }
        }
        byte[] out = new byte[to - from - 2 * escapes];
        int o = 0;
        for (int i = from; i < to; i++) {
            char c = query.charAt(i);
            if (c == '%') {
                out[o++] = (byte) (hex(query.charAt(i + 1)) << 4 | hex(query.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80) {
                out[o++] = (byte) c;
            } else {
                throw new IllegalArgumentException("parameter '" + name + "' holds a non-ASCII character: "
                        + "percent-encode its UTF-8 bytes");
            }
        }
        return out;
    }

    private static IllegalArgumentException malformed(String query, int from, int to, String name) {
        return new IllegalArgumentException("bad percent-encoding in parameter '" + name + "': '"
                + query.substring(from, Math.min(to, from + 64)) + "'");
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
