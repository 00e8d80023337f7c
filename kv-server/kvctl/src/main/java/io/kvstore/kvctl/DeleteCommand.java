package io.kvstore.kvctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvctl delete KEY}: writes a delete (a tombstone) of the key. */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {"Deletes a key (DELETE /v0/entity): stores a tombstone, whether or not the key existed.",
            "Exit 1 if fewer than --ack replicas stored it (504)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl delete user:42", "  kvctl delete --key-hex 00ff10 --ack 3 --from 3"})
final class DeleteCommand extends DataCommand {
    @Parameters(paramLabel = "KEY", description = "The key: UTF-8 text, or hexadecimal with --key-hex.")
    String keyArgument;

    @Override
    public Integer call() {
        byte[] key = key(keyArgument);
        withClient(client -> {
            client.blocking().delete(key, replicas.callOptions());
            return null;
        });
        err().println("deleted " + KeyText.escape(key));
        err().flush();
        return Kvctl.OK;
    }
}
