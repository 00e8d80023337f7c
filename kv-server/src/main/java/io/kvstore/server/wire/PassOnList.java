package io.kvstore.server.wire;

import io.kvstore.cluster.membership.ClusterMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The nodes a pushed map is to be handed on to, as the {@code passOn} parameter of the map push: their
 * positions in the pushed map's member list, ascending, runs of consecutive positions written as ranges
 * ({@code 3-9,12,40-45}), so that the share of a thousand-node map fits a request line.
 */
public final class PassOnList {
    /** Longest parameter accepted: a range per member at most, and far more than any share needs. */
    static final int MAX_CHARS = 64 << 10;

    private PassOnList() {
    }

    /**
     * {@code nodes}, members of {@code map}, as positions in it.
     *
     * @throws IllegalArgumentException if one is not a member
     */
    public static String encode(ClusterMap map, List<String> nodes) {
        List<String> urls = map.urls();
        int[] positions = new int[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            positions[i] = urls.indexOf(nodes.get(i));
            if (positions[i] < 0) {
                throw new IllegalArgumentException(nodes.get(i) + " is not a member of the map of epoch " + map.epoch());
            }
        }
        Arrays.sort(positions);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < positions.length; i++) {
            int start = positions[i];
            while (i + 1 < positions.length && positions[i + 1] == positions[i] + 1) {
                i++;
            }
            text.append(text.length() == 0 ? "" : ",").append(start);
            if (positions[i] != start) {
                text.append('-').append(positions[i]);
            }
        }
        return text.toString();
    }

    /**
     * The members of {@code map} that {@code text} names.
     *
     * @throws IllegalArgumentException naming what is wrong: not positions and ranges, not ascending, or a
     *                                  position the map does not have
     */
    public static List<String> decode(String text, ClusterMap map) {
        if (text.length() > MAX_CHARS) {
            throw new IllegalArgumentException("passOn is longer than " + MAX_CHARS + " characters");
        }
        List<String> urls = map.urls();
        List<String> nodes = new ArrayList<>();
        int last = -1;
        for (String part : text.split(",", -1)) {
            int dash = part.indexOf('-');
            int from = position(dash < 0 ? part : part.substring(0, dash), text);
            int to = dash < 0 ? from : position(part.substring(dash + 1), text);
            if (from <= last || to < from) {
                throw new IllegalArgumentException("passOn must list positions in ascending order, got '" + text + "'");
            }
            if (to >= urls.size()) {
                throw new IllegalArgumentException("passOn names position " + to + " of a map of " + urls.size() + " members");
            }
            nodes.addAll(urls.subList(from, to + 1));
            last = to;
        }
        return nodes;
    }

    private static int position(String digits, String text) {
        if (digits.isEmpty() || digits.length() > 6 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("passOn must be positions and ranges (3-9,12), got '" + text + "'");
        }
        return Integer.parseInt(digits);
    }
}
