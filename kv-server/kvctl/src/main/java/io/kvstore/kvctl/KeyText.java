package io.kvstore.kvctl;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Keys and values between bytes and the command line: a key argument is UTF-8 text, or hexadecimal with
 * {@code --key-hex}; bytes are printed as text with every byte that is not printable ASCII (and the
 * backslash) as {@code \xNN}, or as hexadecimal.
 */
final class KeyText {
    private KeyText() {
    }

    /** The bytes of {@code argument}: its UTF-8 bytes, or with {@code hex} the bytes it spells. */
    static byte[] parse(String argument, boolean hex, String what) {
        if (!hex) {
            return argument.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return HexFormat.of().parseHex(argument);
        } catch (IllegalArgumentException e) {
            throw KvctlException.usage(what + " '" + argument + "' is not hexadecimal bytes (--key-hex): " + e.getMessage());
        }
    }

    /** {@code bytes} as text a terminal shows unchanged and a reader can tell apart. */
    static String escape(byte[] bytes) {
        StringBuilder text = new StringBuilder(bytes.length);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c == '\\') {
                text.append("\\\\");
            } else if (c >= 0x20 && c < 0x7F) {
                text.append((char) c);
            } else {
                text.append(String.format("\\x%02x", c));
            }
        }
        return text.toString();
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
