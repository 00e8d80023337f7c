package io.kvstore.cluster;

/** Bad {@code ack}/{@code from} parameters; the message says what was wrong (the server answers 400). */
public final class InvalidQuorumException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidQuorumException(String message) {
        super(message);
    }
}
