package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a plan streams of one key, as each of its senders computes it ({@link KeyMovement#targets}), with
 * the key's replicas before and after the change by URL.
 *
 * @param key     the key, as text
 * @param was     the old replicas, in replica order
 * @param will    the new replicas, in replica order
 * @param losers  the old replicas that are not new ones, in old replica order
 * @param gainers the new replicas that were not old ones, in new replica order
 * @param dead    the old replicas that a removal removes
 * @param copies  every copy sent, by sender in {@link KeyMovement#senders()} order
 */
record KeyStreams(String key, List<String> was, List<String> will, List<String> losers, List<String> gainers, List<String> dead,
                  List<Copy> copies) {

    /** One copy of the key, from one node to another. */
    record Copy(String from, String to) {
    }

    /** Placements by map: building one (a ring's tokens, Maglev's table) costs far more than a lookup. */
    private static final Map<ClusterMap, Partitioner> PLACEMENTS = new ConcurrentHashMap<>();

    static KeyStreams of(KeyMovement movement, byte[] key) {
        List<String> was = replicas(movement.before(), key);
        List<String> will = replicas(movement.after(), key);
        List<String> losers = new ArrayList<>(was);
        losers.removeAll(will);
        List<String> gainers = new ArrayList<>(will);
        gainers.removeAll(was);
        List<String> dead = new ArrayList<>();
        for (String node : was) {
            if (movement.fromSurvivors() && !movement.after().contains(node)) {
                dead.add(node);
            }
        }
        int most = Math.max(was.size(), will.size());
        int[] out = new int[most];
        List<Copy> copies = new ArrayList<>();
        for (String sender : movement.senders()) {
            int n = movement.targets(key, movement.indexOf(sender), out, new int[most], new int[most]);
            for (int i = 0; i < n; i++) {
                copies.add(new Copy(sender, movement.afterNodes().get(out[i])));
            }
        }
        return new KeyStreams(new String(key, StandardCharsets.UTF_8), was, will, losers, gainers, dead, copies);
    }

    /** The nodes that send the key to {@code node}, once per copy. */
    List<String> sourcesOf(String node) {
        List<String> sources = new ArrayList<>();
        for (Copy copy : copies) {
            if (copy.to().equals(node)) {
                sources.add(copy.from());
            }
        }
        return sources;
    }

    /** Whether the dead node of a removal was a replica of the key. */
    boolean heldByDead() {
        return !dead.isEmpty();
    }

    private static List<String> replicas(ClusterMap map, byte[] key) {
        Partitioner placement = PLACEMENTS.computeIfAbsent(map, ClusterMap::placement);
        List<String> nodes = new ArrayList<>(map.replicationFactor());
        for (int replica : placement.replicas(key, map.replicationFactor())) {
            nodes.add(placement.nodes().get(replica));
        }
        return nodes;
    }
}
