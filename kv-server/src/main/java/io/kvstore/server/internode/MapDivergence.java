package io.kvstore.server.internode;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.Headers;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells whether a peer holds another map of this node's epoch: both maps then claim to be the cluster's,
 * nodes only adopt higher epochs, so neither would ever give way and the two would place keys
 * differently. Such a peer is reported (an error logged once per peer and map, and counted every time)
 * and its replica requests are refused, so that the split shows instead of writes going to the wrong
 * replicas. Thread-safe.
 */
public final class MapDivergence {
    private static final Logger LOG = LoggerFactory.getLogger(MapDivergence.class);
    private final String self;
    private final Supplier<ClusterMap> map;
    /**
     * Peers and maps already logged, at most {@link #MAX_LOGGED}: the headers are the sender's to choose,
     * and a stream of made-up ones must neither grow the heap nor fill the log.
     */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    public static final int MAX_LOGGED = 64;
    private final LongAdder seen = new LongAdder();

    /** @param map this node's current map; {@code null} while it has none, when nothing is checked */
    public MapDivergence(String self, Supplier<ClusterMap> map) {
        this.self = self;
        this.map = map;
    }

    /**
     * Checks the map a request of {@code peer} says it was sent on, from its epoch and fingerprint
     * headers (either missing: nothing to compare). Returns {@code null} if nothing contradicts this
     * node's map, else why the request is refused.
     */
    public String refusal(String epochHeader, String fingerprintHeader, String peer) {
        if (epochHeader == null || fingerprintHeader == null) {
            return null;
        }
        long epoch;
        try {
            epoch = Decimal.parse(epochHeader, Headers.EPOCH);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return check(epoch, fingerprintHeader, peer);
    }

    /** A map of {@code peer} with this epoch and fingerprint was seen: see {@link #refusal}. */
    public String check(long epoch, String fingerprint, String peer) {
        ClusterMap ours = map.get();
        if (ours == null || ours.epoch() != epoch || ours.fingerprintText().equals(fingerprint)) {
            return null;
        }
        seen.increment();
        String who = peer == null ? "a peer" : peer;
        String reason = "cluster map mismatch: " + who + " and " + self + " both hold a map of epoch " + epoch
                + " but different ones (fingerprint " + fingerprint + " there, " + ours.fingerprintText() + " here);"
                + " one of them was seeded apart from the cluster and must be restarted with the cluster's map";
        if (logged.size() < MAX_LOGGED && logged.add(who + ' ' + fingerprint)) {
            LOG.error("{}; replica requests from {} are refused (409) until one of the two holds a newer map."
                    + " This node's map: {}", reason, who, ours);
        }
        return reason;
    }

    /** How many times a peer was found on another map of this node's epoch: requests refused and pulls. */
    public long count() {
        return seen.sum();
    }
}
