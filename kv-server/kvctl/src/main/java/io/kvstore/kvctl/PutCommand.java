package io.kvstore.kvctl;

import io.kvstore.client.CallOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvctl put KEY}: stores a value, from the command line, a file or stdin. */
@Command(name = "put", mixinStandardHelpOptions = true,
        description = {"Stores a value under a key (PUT /v0/entity). The value is VALUE as UTF-8 text, the bytes of"
                + " --value-file, or, with neither, every byte of stdin.",
            "Exit 1 if the node refused it (400, 413: over its body limit, 504: fewer than --ack replicas stored it;"
                + " a 504 write may still have reached some replicas)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl put user:42 Ada", "  kvctl put user:42 --value-file photo.jpg --ttl 3600",
            "  gzip -c report.csv | kvctl put report.csv.gz", "  kvctl put --key-hex 00ff10 --value-file value.bin --ack 3"})
final class PutCommand extends DataCommand {
    @Parameters(index = "0", paramLabel = "KEY", description = "The key: UTF-8 text, or hexadecimal with --key-hex.")
    String keyArgument;

    @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE", description = "The value, as UTF-8 text.")
    String valueText;

    @Option(names = "--value-file", paramLabel = "FILE", description = "Read the value from FILE, byte for byte.")
    Path valueFile;

    @Option(names = "--ttl", paramLabel = "SECONDS", description = "The value expires this many seconds after the write.")
    Long ttlSeconds;

    @Override
    public Integer call() {
        byte[] key = key(keyArgument);
        CallOptions options = replicas.callOptions();
        if (ttlSeconds != null) {
            try {
                options = options.ttlSeconds(ttlSeconds);
            } catch (IllegalArgumentException e) {
                throw KvctlException.usage("--ttl: " + e.getMessage());
            }
        }
        byte[] value = value();
        CallOptions call = options;
        withClient(client -> {
            client.blocking().put(key, value, call);
            return null;
        });
        err().println("stored " + value.length + " bytes under " + KeyText.escape(key));
        err().flush();
        return Kvctl.OK;
    }

    private byte[] value() {
        if (valueText != null && valueFile != null) {
            throw KvctlException.usage("give VALUE or --value-file, not both");
        }
        if (valueText != null) {
            return valueText.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return valueFile != null ? Files.readAllBytes(valueFile) : kvctl.stdin().readAllBytes();
        } catch (IOException e) {
            throw KvctlException.usage("cannot read " + (valueFile != null ? "--value-file " + valueFile : "the value from stdin")
                    + ": " + KvctlException.describe(e));
        }
    }
}
