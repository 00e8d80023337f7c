package io.kvstore.server.wire;

/**
 * The headers of the internal routes, named once: what a replica call carries besides its value, and
 * what every internode request says about its sender's cluster map (docs/PROTOCOL.md).
 */
public final class Headers {
    /** An entry's timestamp on an internal read's answer or write. */
    public static final String TIMESTAMP = "X-Kv-Timestamp";
    /** Present on an internal answer or write that carries a tombstone. */
    public static final String TOMBSTONE = "X-Kv-Tombstone";
    /** An entry's expiry, in milliseconds since the epoch. */
    public static final String EXPIRES = "X-Kv-Expires";
    /** The sender's map epoch, on every internode request. */
    public static final String EPOCH = "X-Kv-Epoch";
    /**
     * The {@linkplain io.kvstore.cluster.membership.ClusterMap#fingerprintText() fingerprint} of the
     * sender's map, with its epoch on internode requests: a map of the same epoch with another
     * fingerprint is another cluster's.
     */
    public static final String MAP_FINGERPRINT = "X-Kv-Map";
    /** The sender's URL, on every membership request, so that a node behind knows whom to pull from. */
    public static final String NODE = "X-Kv-Node";
    /** Marks a change request a member forwarded to the claimant: it is never forwarded again. */
    public static final String FORWARDED = "X-Kv-Forwarded";

    private Headers() {
    }
}
