package io.kvstore.client;

/**
 * A request that did not succeed: the node's answer was an error status, or no node could be reached.
 * Subclasses name the answers a program may want to handle: {@link QuorumNotReachedException} (504),
 * {@link OverloadedException} (503) and {@link InvalidRequestException} (400, 413).
 */
public class KvClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String node;

    /**
     * @param status the HTTP status the node answered, or 0 if there was no answer
     * @param node   the node's URL, or {@code null} if none was asked
     */
    public KvClientException(String message, int status, String node, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.node = node;
    }

    /** The HTTP status the node answered, or 0 if no answer came (unreachable, timed out). */
    public int status() {
        return status;
    }

    /** The URL of the node that answered or failed to, or {@code null} if none was asked. */
    public String node() {
        return node;
    }
}
