package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that wants credentials: tokens from a file or the environment, and requests signed with the
 * cluster secret, admin and data commands alike (a body's digest signed with it).
 */
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
            String secretFile = cluster.toString();
            Run signedGet = Run.kvctl("get", "--node", node, "--secret-file", secretFile, "k");
            assertEquals(0, signedGet.exitCode, "the node takes the client's signature: " + signedGet);
            assertEquals("v", signedGet.stdoutText());
            Run signedPut = Run.with(Map.of("KVCTL_SECRET_FILE", secretFile), "a value signed with its body".getBytes(),
                    "put", "--node", node, "signed");
            assertEquals(0, signedPut.exitCode, "a body's digest is signed too: " + signedPut);
            Run signedScan = Run.with(Map.of("KVCTL_SECRET_FILE", secretFile), new byte[0], "scan", "--node", node, "a");
            assertEquals(0, signedScan.exitCode, signedScan.toString());
            assertTrue(signedScan.out.contains("signed\ta value signed with its body"), signedScan.out);
            assertEquals(0, Run.kvctl("delete", "--node", node, "--secret-file", secretFile, "signed").exitCode);
            Run deleted = Run.kvctl("get", "--node", node, "--secret-file", secretFile, "signed");
            assertEquals(Kvctl.REFUSED, deleted.exitCode, deleted.toString());
            Run wrongForData = Run.kvctl("get", "--node", node, "--secret-file",
                    secret("another.secret", "another-secret-0123456789abcdef").toString(), "k");
            assertEquals(Kvctl.REFUSED, wrongForData.exitCode, wrongForData.toString());
            assertTrue(wrongForData.err.contains("403"), wrongForData.err);
            Run both = Run.with(Map.of("KVCTL_SECRET_FILE", secretFile, "KVCTL_TOKEN", "client-token-0123456789abcdef"),
                    new byte[0], "get", "--node", node, "k");
            assertEquals(Kvctl.USAGE, both.exitCode, both.toString());
            Run optionWins = Run.with(Map.of("KVCTL_SECRET_FILE", dir.resolve("missing").toString()), new byte[0],
                    "get", "--node", node, "--token-file", client.toString(), "k");
            assertEquals(0, optionWins.exitCode, optionWins.toString());
            Run noToken = Run.kvctl("get", "--node", node, "k");
            assertEquals(Kvctl.REFUSED, noToken.exitCode, noToken.toString());
            assertTrue(noToken.err.contains("401"), noToken.err);
        }
    }
}
