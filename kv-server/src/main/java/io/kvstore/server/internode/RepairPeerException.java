package io.kvstore.server.internode;

/** A peer of a repair exchange could not be reached, or answered something other than expected. */
final class RepairPeerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RepairPeerException(String message, Throwable cause) {
        super(message, cause);
    }
}
