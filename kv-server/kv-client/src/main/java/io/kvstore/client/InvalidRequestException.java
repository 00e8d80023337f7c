package io.kvstore.client;

/**
 * 400, 413 or 414: the node refused the request as malformed or too large (a key or body over the
 * node's limit, {@code ack}/{@code from} out of range, a request line too long to read). Sending it again will not help.
 */
public final class InvalidRequestException extends KvClientException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message, int status, String node) {
        super(message, status, node, null);
    }
}
