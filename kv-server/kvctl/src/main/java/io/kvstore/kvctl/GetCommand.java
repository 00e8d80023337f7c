package io.kvstore.kvctl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvctl get KEY}: a key's value, byte for byte. */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = {"Reads a key's value (GET /v0/entity) and writes its bytes as they are to stdout, or to --out.",
            "Exit 1 if the key is absent or deleted (404), or the node failed (504: fewer than --ack replicas answered)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl get user:42", "  kvctl get user:42 --ack 1 --from 3", "  kvctl get --key-hex 00ff10 --out value.bin"})
final class GetCommand extends DataCommand {
    @Parameters(paramLabel = "KEY", description = "The key: UTF-8 text, or hexadecimal with --key-hex.")
    String keyArgument;

    @Option(names = "--out", paramLabel = "FILE", description = "Write the value to FILE (replaced) instead of stdout.")
    Path outFile;

    @Override
    public Integer call() throws IOException {
        byte[] key = key(keyArgument);
        Optional<byte[]> value = withClient(client -> client.blocking().get(key, replicas.callOptions()));
        if (value.isEmpty()) {
            throw KvctlException.refused(KeyText.escape(key) + ": not found (absent or deleted)");
        }
        if (outFile != null) {
            try {
                Files.write(outFile, value.get());
            } catch (IOException e) {
                throw KvctlException.usage("cannot write --out " + outFile + ": " + KvctlException.describe(e));
            }
        } else {
            kvctl.stdout().write(value.get());
            kvctl.stdout().flush();
        }
        return Kvctl.OK;
    }
}
