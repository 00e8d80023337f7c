package io.kvstore.cluster;

/**
 * A replicated write carried a timestamp further past this node's clock than
 * {@link HybridClock#MAX_AHEAD_MILLIS}: a misconfigured peer or a forged request, refused (400).
 */
public final class TimestampOutOfBoundsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public TimestampOutOfBoundsException(String message) {
        super(message);
    }
}
