package io.kvstore.cluster.internal.metadata;

import java.io.IOException;

/**
 * A map change could not be committed: no majority of the metadata group answered. If some member may
 * have accepted the map, the change may still be committed later, by whoever finishes it.
 */
public final class NoMajorityException extends IOException {
    private final boolean outcomeUnknown;

    public NoMajorityException(String reason, boolean outcomeUnknown) {
        super(reason);
        this.outcomeUnknown = outcomeUnknown;
    }

    /** Whether the map may still be committed (some member may hold it), rather than surely not. */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
