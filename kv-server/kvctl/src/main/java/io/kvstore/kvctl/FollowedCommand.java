package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * An admin operation the node reports the progress of ({@code repair}, {@code cleanup}): started with
 * {@code POST target?async=true}, which answers {@code 202} with the run's id, then followed with
 * {@code GET target?id=N} and drawn as an {@link OperationBar} on stderr until it is {@code done} (its
 * summary on stdout, exit 0) or {@code failed} (its reason on stderr, exit 1). A node that answers the
 * {@code POST} with the operation's end instead is waited for as {@link WaitedCommand} does.
 */
abstract class FollowedCommand extends WaitedCommand {
    @Option(names = "--poll-ms", paramLabel = "MILLIS", defaultValue = "500",
            description = "How often the node is asked for the progress (default: ${DEFAULT-VALUE}).")
    long pollMillis;

    @Override
    int run(String what, String target) {
        if (pollMillis < 10) {
            throw KvctlException.usage("--poll-ms must be at least 10, got " + pollMillis);
        }
        String node = node();
        NodeHttp http = http();
        Answer started = http.await(node, http.sendUntilDone(node, "POST", target + "?async=true"));
        if (started.status() != 202) {
            return finish(what, node, started, null);
        }
        long id = started.json().getLong("id");
        ProgressLine progress = new ProgressLine(err(), kvctl.terminal());
        JsonObject run = follow(http, node, target + "?id=" + id, progress);
        String description = what + " " + id + " on " + node;
        JsonObject result = run.getJsonObject("result");
        if (json && result != null) {
            printRaw(result);
        }
        if (!"done".equals(run.getString("status"))) {
            throw KvctlException.refused(description + " " + run.getString("status") + ": "
                    + run.getString("reason", "no reason given"));
        }
        if (!json) {
            out().println(summarize(result) + " (" + Units.duration(ProgressBar.elapsed(run)) + ")");
            out().flush();
        }
        return outcome(result);
    }

    /** The run's entry once it is no longer running; a node silent for {@link ChangeFollower#GIVE_UP} is a failure. */
    private JsonObject follow(NodeHttp http, String node, String target, ProgressLine progress) {
        Instant lastAnswer = Instant.now();
        try {
            while (true) {
                try {
                    JsonObject run = http.send(node, "GET", target).expect(200).json();
                    lastAnswer = Instant.now();
                    progress.show(OperationBar.render(run, ProgressBar.elapsed(run)));
                    if (!"running".equals(run.getString("status"))) {
                        return run;
                    }
                } catch (KvctlException e) {
                    if (e.exitCode() != Kvctl.UNREACHABLE
                            || Duration.between(lastAnswer, Instant.now()).compareTo(ChangeFollower.GIVE_UP) > 0) {
                        throw e;
                    }
                }
                TimeUnit.MILLISECONDS.sleep(pollMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KvctlException(Kvctl.REFUSED, "interrupted while following " + target + " on " + node, e);
        } finally {
            progress.end();
        }
    }
}
