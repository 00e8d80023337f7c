package io.kvstore.kvctl;

import io.kvstore.client.KeyValue;
import io.kvstore.client.RangeIterator;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvctl scan START [END]}: the entries of a key range, in key order. */
@Command(name = "scan", mixinStandardHelpOptions = true,
        description = {"Streams the entries with START <= key < END (GET /v0/entities), in key order, one per line: the key,"
                + " a tab, the value; bytes that are not printable ASCII (and the backslash) are written \\xNN, or"
                + " everything in hexadecimal with --hex.",
            "--scope cluster (the default) merges every node's copies, the newest version of each key winning, each"
                + " key's answer from --ack of its --from replicas; --scope node reads only the node's own store."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl scan user: user;            # every key starting user:",
            "  kvctl scan a --limit 10 --keys-only", "  kvctl scan --key-hex 00 ff --hex --scope node"})
final class ScanCommand extends DataCommand {
    /** Whose entries a range returns. */
    enum Scope { cluster, node }

    @Parameters(index = "0", paramLabel = "START", description = "The first key (inclusive).")
    String startArgument;

    @Parameters(index = "1", arity = "0..1", paramLabel = "END", description = "The end (exclusive); none: to the last key.")
    String endArgument;

    @Option(names = "--scope", paramLabel = "SCOPE", defaultValue = "cluster",
            description = "cluster or node (default: ${DEFAULT-VALUE}).")
    Scope scope;

    @Option(names = "--limit", paramLabel = "N", description = "Stop after N entries.")
    Long limit;

    @Option(names = "--keys-only", description = "Print the keys only.")
    boolean keysOnly;

    @Option(names = "--hex", description = "Print keys and values in hexadecimal.")
    boolean hex;

    @Override
    public Integer call() {
        byte[] start = key(startArgument);
        byte[] end = endArgument == null ? null : key(endArgument);
        if (limit != null && limit < 1) {
            throw KvctlException.usage("--limit must be at least 1, got " + limit);
        }
        if (scope == Scope.node && (replicas.ack != null || replicas.from != null)) {
            throw KvctlException.usage("--ack and --from apply to --scope cluster only");
        }
        PrintWriter out = out();
        long printed = withClient(client -> {
            long count = 0;
            try (RangeIterator entries = scope == Scope.cluster ? client.range(start, end, replicas.callOptions())
                    : client.localRange(node(), start, end)) {
                while ((limit == null || count < limit) && entries.hasNext()) {
                    KeyValue entry = entries.next();
                    out.println(keysOnly ? text(entry.key()) : text(entry.key()) + "\t" + text(entry.value()));
                    count++;
                }
            }
            return count;
        });
        out.flush();
        err().println(printed + (printed == 1 ? " entry" : " entries"));
        err().flush();
        return Kvctl.OK;
    }

    private String text(byte[] bytes) {
        return hex ? KeyText.hex(bytes) : KeyText.escape(bytes);
    }
}
