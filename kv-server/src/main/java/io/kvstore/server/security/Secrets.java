package io.kvstore.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * One or two secrets read from a file: the first is the one this node presents, any is accepted, so that
 * a secret can be rotated without stopping the cluster (docs/OPERATIONS.md#security). Never printed:
 * {@link #toString()} names only the file.
 */
public final class Secrets {
    private final String source;
    private final List<byte[]> values;

    Secrets(String source, List<byte[]> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException(source + " holds no secret");
        }
        this.source = source;
        this.values = List.copyOf(values);
    }

    public static Secrets of(String source, String... values) {
        List<byte[]> bytes = new ArrayList<>();
        for (String value : values) {
            bytes.add(value.getBytes(StandardCharsets.UTF_8));
        }
        return new Secrets(source, bytes);
    }

    /** The secret this node signs with or presents. */
    byte[] primary() {
        return values.get(0);
    }

    /** Every accepted secret, the primary first. */
    public List<byte[]> accepted() {
        return values;
    }

    /** Whether {@code candidate} is one of the secrets, compared in time independent of where they differ. */
    public boolean matches(byte[] candidate) {
        boolean match = false;
        for (byte[] value : values) {
            match |= MessageDigest.isEqual(value, candidate);
        }
        return match;
    }

    /** Where the secrets came from, for messages. */
    String source() {
        return source;
    }

    @Override
    public String toString() {
        return "Secrets{" + source + ", " + values.size() + " (not shown)}";
    }
}
