package io.kvstore.cluster.internal.repair;

/** A node refuses to open another repair tree while it holds as many as it allows; retry later. */
public final class RepairBusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RepairBusyException(String message) {
        super(message);
    }
}
