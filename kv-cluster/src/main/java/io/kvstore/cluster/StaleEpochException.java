package io.kvstore.cluster;

/**
 * A replica refused a request because its cluster map, newer than the coordinator's, moved the key's
 * replicas since the coordinator's epoch. The replica is alive and answered: the coordinator neither
 * suspects it nor hints the write, and retries on the newer map.
 */
public final class StaleEpochException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long replicaEpoch;

    /** @param replicaEpoch the epoch of the refusing replica's map, which the coordinator must reach */
    public StaleEpochException(String message, long replicaEpoch) {
        super(message);
        this.replicaEpoch = replicaEpoch;
    }

    /** The epoch of the refusing replica's map. */
    public long replicaEpoch() {
        return replicaEpoch;
    }

    /** The newest replica epoch among the refusals behind a failed request, or -1 if no replica refused it so. */
    public static long newestIn(Throwable failure) {
        long newest = -1;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StaleEpochException stale) {
                newest = Math.max(newest, stale.replicaEpoch);
            }
            if (cause instanceof NotEnoughReplicasException quorum) {
                for (Throwable one : quorum.failures()) {
                    for (Throwable c = one; c != null; c = c.getCause()) {
                        if (c instanceof StaleEpochException stale) {
                            newest = Math.max(newest, stale.replicaEpoch);
                        }
                    }
                }
            }
        }
        return newest;
    }
}
