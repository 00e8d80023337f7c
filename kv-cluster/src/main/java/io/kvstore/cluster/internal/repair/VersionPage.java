package io.kvstore.cluster.internal.repair;

import java.util.List;

/**
 * One page of a listing of versions in key order (see {@link RepairPeer#versions}).
 *
 * @param versions the listed versions, in increasing key order
 * @param complete whether the listing reached its upper bound (or the end of the store); if not,
 *                 the next page starts after {@code through}
 * @param through  the last key the scan looked at (listed or not) when the page is not complete;
 *                 {@code null} when it is
 */
public record VersionPage(List<KeyVersion> versions, boolean complete, byte[] through) {

    public VersionPage {
        if (!complete && through == null) {
            throw new IllegalArgumentException("an incomplete page must say where it stopped");
        }
    }
}
