package io.kvstore.kvctl;

import io.kvstore.client.CallOptions;
import picocli.CommandLine.Option;

/** {@code --ack} and {@code --from} of a data command, as the node takes them; unset, the node's defaults. */
final class ReplicaOptions {
    @Option(names = "--ack", paramLabel = "A", description = "Answers to wait for (default: a majority of --from).")
    Integer ack;

    @Option(names = "--from", paramLabel = "F", description = "Replicas to ask (default: the replication factor).")
    Integer from;

    /** The client's options for these; a value the protocol refuses is a usage error. */
    CallOptions callOptions() {
        try {
            CallOptions options = CallOptions.DEFAULT;
            if (from != null) {
                options = options.from(from);
            }
            return ack == null ? options : options.ack(ack);
        } catch (IllegalArgumentException e) {
            throw KvctlException.usage(e.getMessage());
        }
    }
}
