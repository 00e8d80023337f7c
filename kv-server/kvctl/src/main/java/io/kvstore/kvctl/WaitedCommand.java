package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * An admin operation that answers once it is done ({@code POST /v0/admin/scrub}): kvctl waits as long
 * as it takes, with a {@link Spinner} on stderr, then prints the node's summary, raw with {@code --json}.
 * Operations the node reports the progress of are {@link FollowedCommand}s.
 */
abstract class WaitedCommand extends KvctlCommand {
    @Option(names = "--json", description = "Print the node's answer as it gave it.")
    boolean json;

    /**
     * Runs {@code POST target} on the node; an answer other than 200 ends kvctl with exit 1 and the node's
     * reason (its JSON still printed with {@code --json}).
     */
    int run(String what, String target) {
        String node = node();
        NodeHttp http = http();
        Answer answer;
        Duration took;
        try (Spinner spinner = new Spinner(new ProgressLine(err(), kvctl.terminal()), what + " on " + node, kvctl.terminal())) {
            answer = http.await(node, http.sendUntilDone(node, "POST", target));
            took = spinner.elapsed();
        }
        return finish(what, node, answer, took);
    }

    /** Prints the node's final answer to the operation, or throws its refusal; {@code took}: null if not timed. */
    int finish(String what, String node, Answer answer, Duration took) {
        if (json && answer.body().strip().startsWith("{")) {
            printRaw(answer.body());
        }
        if (answer.status() != 200) {
            String reason = answer.body().strip().startsWith("{") ? answer.json().getString("error", answer.body().strip())
                    : answer.body().strip();
            throw KvctlException.refused(what + " on " + node + ": " + answer.status() + " " + reason);
        }
        JsonObject summary = answer.json();
        if (!json) {
            out().println(summarize(summary) + (took == null ? "" : " (" + Units.duration(took) + ")"));
            out().flush();
        }
        return outcome(summary);
    }

    /** One line for people: what the operation did. */
    abstract String summarize(JsonObject answer);

    /** The exit code of an operation the node answered 200 to; {@link Kvctl#OK} unless the answer reports a problem. */
    int outcome(JsonObject answer) {
        return Kvctl.OK;
    }
}
