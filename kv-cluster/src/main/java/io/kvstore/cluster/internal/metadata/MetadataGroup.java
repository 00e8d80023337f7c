package io.kvstore.cluster.internal.metadata;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.List;

/**
 * The acceptors that decide the map of the epoch after a given map: its first {@code normal} nodes in map
 * order, 3 of them (5 once the map has 5 or more; all of them below 3). Every proposer of epoch E+1
 * holds the same decided map E, so all agree on the group; the group follows the nodes as they come and
 * go, one epoch behind.
 *
 * @param members the acceptors' URLs, in map order
 */
public record MetadataGroup(List<String> members) {
    public MetadataGroup {
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new IllegalArgumentException("a metadata group needs at least one member");
        }
    }

    /** The group that decides the epoch after {@code map}. */
    public static MetadataGroup after(ClusterMap map) {
        List<String> normal = new ArrayList<>();
        for (Member member : map.members()) {
            if (member.state() == NodeState.NORMAL) {
                normal.add(member.url());
            }
        }
        if (normal.isEmpty()) { // every owner leaving or joining: none is "normal", the owners decide
            normal.addAll(map.owners());
        }
        return of(normal);
    }

    /** The group of the first nodes of {@code candidates}, as many as their number calls for. */
    public static MetadataGroup of(List<String> candidates) {
        int size = candidates.size() >= 5 ? 5 : Math.min(3, candidates.size());
        return new MetadataGroup(candidates.subList(0, size));
    }

    /** How many members make a majority. */
    public int quorum() {
        return members.size() / 2 + 1;
    }

    public boolean contains(String node) {
        return members.contains(node);
    }
}
