package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * A long admin operation ({@code repair}, {@code cleanup}, {@code scrub}): kvctl waits for it as long as it
 * takes, with its progress on stderr, then prints the node's summary, raw with {@code --json}.
 * {@link FollowedCommand}s follow a run the node reports; {@link ScrubCommand} draws the pass the node's
 * status shows.
 */
abstract class WaitedCommand extends KvctlCommand {
    @Option(names = "--json", description = "Print the node's answer as it gave it.")
    boolean json;

    /**
     * Runs {@code POST target} on the node, showing what progress it can on stderr meanwhile; an answer
     * other than 200, or a run that failed, ends kvctl with exit 1 and the node's reason (its JSON still
     * printed with {@code --json}).
     */
    abstract int run(String what, String target);

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
