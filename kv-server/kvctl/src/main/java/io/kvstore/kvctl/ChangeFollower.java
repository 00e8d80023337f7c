package io.kvstore.kvctl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Follows a membership change to its end by polling {@code GET /v0/admin/changes}, drawing its
 * {@link ProgressBar} as it goes. It asks the nodes it is given in turn (the claimant that started the
 * change first), and gives up once none has answered for {@link #GIVE_UP}. A change that drops out of
 * the list (the claimant restarted, or decommissioned itself and the role moved on) is judged by the
 * map instead: a node that was to leave and is gone, or was to join and is {@code normal}, is done.
 */
final class ChangeFollower {
    static final Duration GIVE_UP = Duration.ofSeconds(60);

    private final NodeHttp http;
    private final ProgressLine progress;
    private final Duration poll;

    ChangeFollower(NodeHttp http, ProgressLine progress, Duration poll) {
        this.http = http;
        this.progress = progress;
        this.poll = poll;
    }

    /** The change's entry once its status is no longer {@code running}. */
    JsonObject follow(long id, List<String> nodes) {
        Instant lastAnswer = Instant.now();
        JsonObject lastSeen = null;
        while (true) {
            KvctlException lastError = null;
            for (String node : nodes) {
                JsonObject list;
                try {
                    list = http.send(node, "GET", "/v0/admin/changes").expect(200).json();
                } catch (KvctlException e) {
                    lastError = e;
                    continue;
                }
                lastAnswer = Instant.now();
                lastError = null;
                JsonObject change = find(list.getJsonArray("changes", new JsonArray()), id);
                if (change != null) {
                    lastSeen = change;
                    progress.show(ProgressBar.render(change, ProgressBar.elapsed(change)));
                    if (!"running".equals(change.getString("status"))) {
                        progress.end();
                        return change;
                    }
                } else if (lastSeen != null) {
                    JsonObject settled = settledByMap(node, lastSeen);
                    if (settled != null) {
                        progress.end();
                        return settled;
                    }
                }
                break;
            }
            if (Duration.between(lastAnswer, Instant.now()).compareTo(GIVE_UP) > 0) {
                progress.end();
                throw lastError != null ? lastError : KvctlException.refused("change " + id + " is not listed by "
                        + nodes + " (kvctl changes lists what the claimant drives)");
            }
            pause();
        }
    }

    /** The change judged from {@code node}'s map, once its list no longer holds it; null while the map does not tell. */
    private JsonObject settledByMap(String node, JsonObject change) {
        JsonObject map = http.send(node, "GET", "/v0/cluster").expect(200).json();
        String state = null;
        JsonArray members = map.getJsonArray("nodes");
        for (int i = 0; i < members.size(); i++) {
            if (change.getString("node").equals(members.getJsonObject(i).getString("url"))) {
                state = members.getJsonObject(i).getString("state");
            }
        }
        boolean join = "join".equals(change.getString("operation"));
        if (join ? "normal".equals(state) : state == null) {
            return change.copy().put("status", "done").put("step", "done").put("streamsDone", change.getInteger("streams"))
                    .put("reason", "no longer listed by the claimant; the map of epoch " + map.getLong("epoch")
                            + (join ? " has the node normal" : " no longer has the node"));
        }
        return null;
    }

    private static JsonObject find(JsonArray changes, long id) {
        for (int i = 0; i < changes.size(); i++) {
            JsonObject change = changes.getJsonObject(i);
            if (change.getLong("id", -1L) == id) {
                return change;
            }
        }
        return null;
    }

    private void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(poll.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvctlException(Kvctl.REFUSED, "interrupted while following the change", e);
        }
    }
}
