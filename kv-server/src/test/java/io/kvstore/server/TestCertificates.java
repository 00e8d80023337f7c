package io.kvstore.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A test PKI made with the JDK's keytool in a temporary directory: a CA, a certificate it issues for
 * 127.0.0.1 and localhost (server and client use), and the same from a second, untrusted CA. Keys and
 * certificates are written as PEM, as the node reads them.
 */
final class TestCertificates {
    private static final String PASSWORD = "changeit";
    final Path caPem;
    final Path nodeCert;
    final Path nodeKey;
    final Path strangerCert;
    final Path strangerKey;
    private final Path nodeStore;
    private final Path strangerStore;

    private TestCertificates(Path dir) throws Exception {
        Path ca = dir.resolve("ca.p12");
        Path otherCa = dir.resolve("other-ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=kvstore test CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString());
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=another CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", otherCa.toString());
        caPem = dir.resolve("ca.pem");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caPem.toString());
        nodeStore = issue(dir, "node", ca);
        strangerStore = issue(dir, "stranger", otherCa);
        nodeCert = dir.resolve("node.crt");
        nodeKey = writeKey(nodeStore, dir.resolve("node.key"));
        strangerCert = dir.resolve("stranger.crt");
        strangerKey = writeKey(strangerStore, dir.resolve("stranger.key"));
    }

    static TestCertificates create(Path dir) throws Exception {
        return new TestCertificates(dir);
    }

    /** A client context that trusts the CA and presents no certificate. */
    SSLContext trustingClient() throws Exception {
        return context(null);
    }

    /** A client context that trusts the CA and presents the node's certificate. */
    SSLContext nodeClient() throws Exception {
        return context(nodeStore);
    }

    /** A client context that trusts the CA and presents a certificate another CA issued. */
    SSLContext strangerClient() throws Exception {
        return context(strangerStore);
    }

    private SSLContext context(Path keyStore) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (keyStore != null) {
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(keyStore), PASSWORD.toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    /** A key pair in {@code <name>.p12}, its certificate issued by {@code ca} into {@code <name>.crt} (PEM). */
    private static Path issue(Path dir, String name, Path ca) throws Exception {
        Path store = dir.resolve(name + ".p12");
        Path request = dir.resolve(name + ".csr");
        Path cert = dir.resolve(name + ".crt");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-keystore", store.toString());
        keytool("-certreq", "-alias", name, "-keystore", store.toString(), "-file", request.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(),
                "-outfile", cert.toString(), "-validity", "2", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-ext", "EKU=serverAuth,clientAuth");
        // Replace the self-signed entry with the issued chain, for the client contexts.
        List<Certificate> chain = new ArrayList<>();
        try (InputStream in = Files.newInputStream(cert)) {
            chain.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
        Path caCert = dir.resolve(name + "-issuer.pem");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caCert.toString());
        try (InputStream in = Files.newInputStream(caCert)) {
            chain.add(CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        KeyStore keys = load(store);
        PrivateKey key = (PrivateKey) keys.getKey(name, PASSWORD.toCharArray());
        keys.setKeyEntry(name, key, PASSWORD.toCharArray(), chain.toArray(new X509Certificate[0]));
        try (var out = Files.newOutputStream(store)) {
            keys.store(out, PASSWORD.toCharArray());
        }
        return store;
    }

    private static Path writeKey(Path store, Path pem) throws Exception {
        KeyStore keys = load(store);
        String alias = keys.aliases().nextElement();
        PrivateKey key = (PrivateKey) keys.getKey(alias, PASSWORD.toCharArray());
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded());
        Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n");
        return pem;
    }

    private static KeyStore load(Path store) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-keypass", PASSWORD, "-storetype", "PKCS12", "-noprompt"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
