package io.kvstore.cluster;

/**
 * An {@code ack}/{@code from} pair that is not integers with {@code 1 <= ack <= from <= cluster size}.
 * The message says what was wrong and is meant for the client (the server answers it with 400).
 */
public final class InvalidQuorumException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidQuorumException(String message) {
        super(message);
    }
}
