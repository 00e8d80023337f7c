package io.kvstore.server.wire;

/**
 * The one rule for the keys a node takes, wherever a key enters (the entity routes, the batched
 * internal calls, range bounds, repair and stream bodies, range frames): 1 to {@code maxKeyBytes}
 * bytes. A longer key would not fit a replica write's request line in base64; an empty one is never
 * stored, so no route may carry one in.
 */
public final class KeyLimit {
    private final int maxKeyBytes;

    /** @param maxKeyBytes the longest key, {@code --max-key-bytes} */
    public KeyLimit(int maxKeyBytes) {
        if (maxKeyBytes < 1) {
            throw new IllegalArgumentException("max key bytes must be positive, got " + maxKeyBytes);
        }
        this.maxKeyBytes = maxKeyBytes;
    }

    public int maxKeyBytes() {
        return maxKeyBytes;
    }

    /** Why a key of {@code length} bytes, called {@code what} in the answer, is refused; null if it is taken. */
    public String refusal(int length, String what) {
        return refusal(length, maxKeyBytes, what);
    }

    /** {@link #refusal(int, String)} for {@code key}. */
    public String refusal(byte[] key, String what) {
        return refusal(key.length, what);
    }

    /**
     * @return {@code key}
     * @throws IllegalArgumentException (400) naming {@code what} if it is empty or over the limit
     */
    public byte[] check(byte[] key, String what) {
        String refusal = refusal(key.length, what);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        return key;
    }

    /** The rule for a decoder that is given its limit as a number: null if {@code length} is taken. */
    public static String refusal(int length, int maxKeyBytes, String what) {
        if (length < 1) {
            return "empty " + what;
        }
        if (length > maxKeyBytes) {
            return what + " of " + length + " bytes exceeds the limit of " + maxKeyBytes;
        }
        return null;
    }
}
