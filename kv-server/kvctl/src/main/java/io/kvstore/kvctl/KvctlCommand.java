package io.kvstore.kvctl;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What every subcommand reaches: its streams, the node, the HTTP client of the admin routes. A
 * subcommand returns its exit code, or throws a {@link KvctlException} that carries one.
 */
abstract class KvctlCommand implements Callable<Integer> {
    @ParentCommand
    Kvctl kvctl;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    String node() {
        return kvctl.connection.node(kvctl);
    }

    NodeHttp http() {
        return kvctl.connection.http(kvctl);
    }

    /** Prints {@code json} as the node gave it, on one line. */
    void printRaw(String json) {
        out().println(json.strip());
        out().flush();
    }

    /** Prints {@code json} (assembled by kvctl from the nodes' answers) on one line. */
    void printRaw(JsonObject json) {
        printRaw(json.encode());
    }
}
