package io.kvstore.kvctl;

import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command on the data routes, through the Java client: every request goes to {@code --node}, which
 * coordinates it. The client's failures become kvctl's: no answer is exit 3, an error status exit 1.
 */
abstract class DataCommand extends KvctlCommand {
    @Mixin
    ReplicaOptions replicas;

    @Option(names = "--key-hex", description = "Keys are given in hexadecimal (any bytes) instead of as UTF-8 text.")
    boolean keyHex;

    byte[] key(String argument) {
        byte[] key = KeyText.parse(argument, keyHex, "key");
        if (key.length == 0) {
            throw KvctlException.usage("a key must have at least one byte");
        }
        return key;
    }

    /** Runs {@code call} with a client connected to the node, closed afterwards. */
    <T> T withClient(Function<KvClient, T> call) {
        try (KvClient client = kvctl.connection.client(kvctl)) {
            return call.apply(client);
        } catch (KvClientException e) {
            throw KvctlException.fromClient(e);
        }
    }
}
