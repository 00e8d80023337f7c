package io.kvstore.core;

import java.util.Arrays;
import java.util.Comparator;

/** Byte-array ordering and formatting shared by every engine. */
public final class Bytes {
    /** Unsigned lexicographic order: the order of keys everywhere in kvstore. */
    public static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;

    private Bytes() {
    }

    /** Compares two keys as unsigned bytes. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** A short printable form for logs and exception messages: printable ASCII kept, others hex-escaped. */
    public static String toDebugString(byte[] bytes) {
        int shown = Math.min(bytes.length, 64);
        StringBuilder sb = new StringBuilder(shown + 8);
        for (int i = 0; i < shown; i++) {
            int b = bytes[i] & 0xFF;
            if (b >= 0x20 && b < 0x7F && b != '\\') {
                sb.append((char) b);
            } else {
                sb.append(String.format("\\x%02x", b));
            }
        }
        if (bytes.length > shown) {
            sb.append("...(").append(bytes.length).append(" bytes)");
        }
        return sb.toString();
    }
}
