package io.kvstore.client;

/**
 * RFC 3986 percent-encoding of key bytes for the {@code id}, {@code start} and {@code end} parameters:
 * unreserved characters as they are, every other byte as {@code %XX}. A space is {@code %20} and a
 * plus sign {@code %2B}: the server reads {@code +} as a plus, not as a space (that is form encoding).
 */
final class KeyEncoding {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private KeyEncoding() {
    }

    /** Appends the encoding of {@code bytes} to {@code out} and returns {@code out}. */
    static StringBuilder append(StringBuilder out, byte[] bytes) {
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (unreserved(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
            }
        }
        return out;
    }

    static String encode(byte[] bytes) {
        return append(new StringBuilder(bytes.length + 8), bytes).toString();
    }

    private static boolean unreserved(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
