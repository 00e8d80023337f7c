package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kvctl against a node serving TLS with a certificate made by keytool for 127.0.0.1, which is its own
 * CA: trusted through {@code --tls-ca}, status, put, get and scan work; without it, every command exits
 * 1 saying the node's certificate is not trusted, as it does with a CA that did not issue it.
 */
@Tag("slow")
class KvctlTlsTest {
    private static final String PASSWORD = "changeit";

    @TempDir
    Path dir;

    @Test
    void commandsWorkWithTheNodesCaAndSayTheCertificateIsNotTrustedWithout() throws Exception {
        Path[] node = selfSigned("node", "SAN=ip:127.0.0.1");
        Path[] other = selfSigned("other", "SAN=ip:127.0.0.1");
        try (Nodes nodes = new Nodes(dir.resolve("nodes"), 1, 1, "https",
                config -> config.security(security -> security.tls(node[0], node[1])))) {
            String url = nodes.url(0);
            String ca = node[0].toString();
            Run status = Run.kvctl("status", "--node", url, "--tls-ca", ca);
            assertEquals(0, status.exitCode, status.toString());
            assertTrue(status.out.contains("1 nodes, 1 answering"), status.out);
            Run put = Run.kvctl("put", "--node", url, "--tls-ca", ca, "secure", "over TLS");
            assertEquals(0, put.exitCode, put.toString());
            Run get = Run.kvctl("get", "--node", url, "--tls-ca", ca, "secure");
            assertEquals(0, get.exitCode, get.toString());
            assertEquals("over TLS", get.stdoutText());
            Run scan = Run.kvctl("scan", "--node", url, "--tls-ca", ca, "a");
            assertEquals(0, scan.exitCode, scan.toString());
            assertTrue(scan.out.contains("secure\tover TLS"), scan.out);

            for (List<String> trust : List.of(List.<String>of(), List.of("--tls-ca", other[0].toString()))) {
                for (List<String> command : List.of(List.of("status"), List.of("get", "secure"), List.of("put", "k", "v"),
                        List.of("cluster"))) {
                    String[] args = concat(command, List.of("--node", url), trust);
                    Run refused = Run.kvctl(args);
                    assertEquals(Kvctl.REFUSED, refused.exitCode, String.join(" ", args) + ": " + refused);
                    assertTrue(refused.err.contains("the certificate of " + url + " is not trusted")
                            && refused.err.contains("give --tls-ca"), String.join(" ", args) + ": " + refused.err);
                }
            }
        }
    }

    private static String[] concat(List<String> a, List<String> b, List<String> c) {
        return java.util.stream.Stream.of(a, b, c).flatMap(List::stream).toArray(String[]::new);
    }

    /** A self-signed certificate with {@code san} and its key, as PEM files: {certificate, key}. */
    private Path[] selfSigned(String name, String san) throws Exception {
        Path store = dir.resolve(name + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-ext", san, "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, "keytool: " + output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        Path certificate = Files.writeString(dir.resolve(name + ".crt"),
                pem("CERTIFICATE", keys.getCertificate(name).getEncoded()));
        Path key = Files.writeString(dir.resolve(name + ".key"),
                pem("PRIVATE KEY", keys.getKey(name, PASSWORD.toCharArray()).getEncoded()));
        return new Path[] {certificate, key};
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
