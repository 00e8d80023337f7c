package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node that wants credentials: tokens from a file or the environment, and requests signed with the cluster secret. */
class KvctlSecurityTest {
    @TempDir
    Path dir;

    private Path secret(String name, String text) throws Exception {
        Path file = Files.writeString(dir.resolve(name), text + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @Test
    void tokensAndTheClusterSecretOpenTheRoutesTheyProtect() throws Exception {
        Path admin = secret("admin.token", "admin-token-0123456789abcdef");
        Path client = secret("client.token", "client-token-0123456789abcdef");
        Path cluster = secret("cluster.secret", "cluster-secret-0123456789abcdef");
        try (Nodes nodes = new Nodes(dir.resolve("nodes"), 1, 1, config -> config.security(security -> security
                .adminTokenFile(admin).clientTokenFile(client).clusterSecretFile(cluster)))) {
            String node = nodes.url(0);
            Run none = Run.kvctl("changes", "--node", node);
            assertEquals(Kvctl.REFUSED, none.exitCode, none.toString());
            assertTrue(none.err.contains(": 401"), none.err);

            assertEquals(0, Run.kvctl("changes", "--node", node, "--token-file", admin.toString()).exitCode);
            Run fromEnvironment = Run.with(Map.of("KVCTL_TOKEN", "admin-token-0123456789abcdef"), new byte[0],
                    "changes", "--node", node);
            assertEquals(0, fromEnvironment.exitCode, fromEnvironment.toString());
            Run signed = Run.kvctl("changes", "--node", node, "--secret-file", cluster.toString());
            assertEquals(0, signed.exitCode, "the node takes kvctl's signature: " + signed);
            Run status = Run.kvctl("status", "--node", node, "--secret-file", cluster.toString());
            assertEquals(0, status.exitCode, status.toString());
            Run wrongSecret = Run.kvctl("changes", "--node", node, "--secret-file",
                    secret("other.secret", "another-secret-0123456789abcdef").toString());
            assertEquals(Kvctl.REFUSED, wrongSecret.exitCode, wrongSecret.toString());
            assertTrue(wrongSecret.err.contains(": 403"), wrongSecret.err);

            assertEquals(0, Run.kvctl("put", "--node", node, "--token-file", client.toString(), "k", "v").exitCode);
            assertEquals("v", Run.kvctl("get", "--node", node, "--token-file", client.toString(), "k").stdoutText());
            Run unsignable = Run.kvctl("get", "--node", node, "--secret-file", cluster.toString(), "k");
            assertEquals(Kvctl.USAGE, unsignable.exitCode, unsignable.toString());
            Run noToken = Run.kvctl("get", "--node", node, "k");
            assertEquals(Kvctl.REFUSED, noToken.exitCode, noToken.toString());
            assertTrue(noToken.err.contains("401"), noToken.err);
        }
    }
}
