package io.kvstore.client;

/**
 * 504: fewer than {@code ack} replicas answered in time. A write may still have reached some replicas
 * (repair then brings it to the others): the outcome is unknown, not a failure. It is how a client sees
 * the coordinating node's {@code io.kvstore.cluster.NotEnoughReplicasException}.
 */
public final class QuorumNotReachedException extends KvClientException {
    private static final long serialVersionUID = 1L;

    public QuorumNotReachedException(String message, String node) {
        super(message, 504, node, null);
    }
}
