package io.kvstore.server.wire;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Every path a node serves, named once: the client routes, the admin routes and the internal routes
 * nodes call on each other (docs/PROTOCOL.md). Whoever sends, serves, authenticates or counts a
 * request names its route from here.
 */
public final class Routes {
    /** The longest request line, and the most bytes of headers, a node reads. */
    public static final int MAX_REQUEST_LINE_BYTES = 16 << 10;
    public static final String ENTITY = "/v0/entity";
    public static final String ENTITIES = "/v0/entities";
    public static final String STATUS = "/v0/status";
    public static final String METRICS = "/metrics";
    public static final String CLUSTER = "/v0/cluster";
    /** The web console's data: the cluster as the node serving it gathers it from every member. */
    public static final String CONSOLE = "/v0/console";
    /** The web console's page; its other files are under {@link #UI_PREFIX}. */
    public static final String UI = "/ui";
    public static final String UI_PREFIX = "/ui/";
    /** Every admin route starts so; they need an admin token or a node's signature. */
    public static final String ADMIN_PREFIX = "/v0/admin/";
    public static final String ADMIN_REPAIR = "/v0/admin/repair";
    public static final String DECOMMISSION = "/v0/admin/decommission";
    public static final String NODES = "/v0/admin/nodes";
    public static final String CLEANUP = "/v0/admin/cleanup";
    public static final String CHANGES = "/v0/admin/changes";
    public static final String ADMIN_SCRUB = "/v0/admin/scrub";
    public static final String ADMIN_HEAL = "/v0/admin/heal";
    /** Every internal route starts so; only nodes call them. */
    public static final String INTERNAL_PREFIX = "/internal/";
    public static final String INTERNAL_ENTITY = "/internal/v0/entity";
    public static final String INTERNAL_ENTITIES = "/internal/v0/entities";
    public static final String WRITES = "/internal/v0/writes";
    public static final String READS = "/internal/v0/reads";
    public static final String PING = "/internal/v0/ping";
    /** A node stopping tells its peers, so they leave it out at once rather than after failures. */
    public static final String DRAINING = "/internal/v0/draining";
    public static final String MAP = "/internal/v0/cluster";
    public static final String MEMBERSHIP_CHANGE = "/internal/v0/membership/change";
    public static final String MEMBERSHIP_STREAM = "/internal/v0/membership/stream";
    public static final String MEMBERSHIP_CLEANUP = "/internal/v0/membership/cleanup";
    /** The epoch log: a proposer's prepare and accept requests to an acceptor of the metadata group. */
    public static final String MEMBERSHIP_EPOCH = "/internal/v0/membership/epoch";
    /** The repair routes are this prefix and a step name ({@code RepairProtocol}). */
    public static final String REPAIR_PREFIX = "/internal/v0/repair/";
    /** The route label of a request for any other path. */
    public static final String UNKNOWN = "other";

    /**
     * The route labels of the request metrics: every path a node serves, the prefix of the repair
     * routes, and {@link #UNKNOWN} last, so that the labels stay bounded.
     */
    public static final List<String> ALL = List.of(ENTITY, ENTITIES, STATUS, METRICS, INTERNAL_ENTITY,
            INTERNAL_ENTITIES, WRITES, READS, PING, DRAINING, ADMIN_REPAIR, CLUSTER, DECOMMISSION, NODES, MAP, MEMBERSHIP_CHANGE,
            MEMBERSHIP_STREAM, CLEANUP, MEMBERSHIP_CLEANUP, MEMBERSHIP_EPOCH, CHANGES, ADMIN_SCRUB, ADMIN_HEAL, CONSOLE, UI, REPAIR_PREFIX,
            UNKNOWN);
    private static final Map<String, Integer> INDEX = IntStream.range(0, ALL.size()).boxed()
            .collect(Collectors.toUnmodifiableMap(ALL::get, i -> i));
    private static final int REPAIR_ROUTE = ALL.indexOf(REPAIR_PREFIX);
    private static final int UI_ROUTE = ALL.indexOf(UI);

    private Routes() {
    }

    /** Whether {@code path} is one of the console's static files, or would be one: served to anyone. */
    public static boolean isConsoleFile(String path) {
        return path.equals(UI) || path.startsWith(UI_PREFIX);
    }

    /** The index in {@link #ALL} of the route serving {@code path}. */
    public static int index(String path) {
        Integer known = INDEX.get(path);
        if (known != null) {
            return known;
        }
        if (path.startsWith(REPAIR_PREFIX)) {
            return REPAIR_ROUTE;
        }
        return isConsoleFile(path) ? UI_ROUTE : ALL.size() - 1;
    }

    /** The label of the route serving {@code path}. */
    public static String label(String path) {
        return ALL.get(index(path));
    }
}
