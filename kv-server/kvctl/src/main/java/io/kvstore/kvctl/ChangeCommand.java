package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command that starts a membership change with {@code async=true} ({@code 202 {"id", "claimant"}}) and
 * follows it to its end with a progress bar ({@link FollowOptions}), unless told not to wait.
 */
abstract class ChangeCommand extends KvctlCommand {
    @Option(names = "--no-wait", description = "Print the change's id once it started, and do not follow it.")
    boolean noWait;

    @Mixin
    FollowOptions following;

    /** Sends {@code method target} to {@code node} and follows the change it starts. */
    int startAndFollow(String node, String method, String target) {
        NodeHttp http = http();
        JsonObject started = http.send(node, method, target).expect(202).json();
        long id = started.getLong("id");
        String claimant = started.getString("claimant", node);
        if (noWait) {
            out().println(id);
            out().flush();
            return Kvctl.OK;
        }
        err().println("change " + id + " started by the claimant " + claimant + "; following it (kvctl cancel " + id
                + " stops it)");
        err().flush();
        return following.follow(http, id, claimant.equals(node) ? List.of(node) : List.of(claimant, node), out(), err(),
                kvctl.terminal());
    }
}
