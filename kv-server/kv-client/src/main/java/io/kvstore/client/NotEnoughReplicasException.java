package io.kvstore.client;

/**
 * 504: fewer than {@code ack} replicas answered in time. A write may still have reached some replicas
 * (repair then brings it to the others): the outcome is unknown, not a failure.
 */
public final class NotEnoughReplicasException extends KvClientException {
    private static final long serialVersionUID = 1L;

    public NotEnoughReplicasException(String message, String node) {
        super(message, 504, node, null);
    }
}
