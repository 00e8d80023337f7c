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
 * 127.0.0.1 and localhost (server and client use), and a self-signed one no node trusts. Keys and
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
        nodeStore = dir.resolve("node.p12");
        strangerStore = dir.resolve("stranger.p12");
        // Three key pairs at once: each keytool is a JVM start.
        Process caKeys = keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=kvstore test CA", "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString());
        Process nodeKeys = keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=node", "-validity", "2", "-keystore", nodeStore.toString());
        Process strangerKeys = keytool("-genkeypair", "-alias", "stranger", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=stranger", "-validity", "2", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-keystore", strangerStore.toString());
        await(caKeys);
        await(nodeKeys);
        await(strangerKeys);
        Path request = dir.resolve("node.csr");
        await(keytool("-certreq", "-alias", "node", "-keystore", nodeStore.toString(), "-file", request.toString()));
        nodeCert = dir.resolve("node.crt");
        await(keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(),
                "-outfile", nodeCert.toString(), "-validity", "2", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-ext", "EKU=serverAuth,clientAuth"));
        X509Certificate caCertificate = (X509Certificate) load(ca).getCertificate("ca");
        caPem = dir.resolve("ca.pem");
        Files.writeString(caPem, pem("CERTIFICATE", caCertificate.getEncoded()));
        List<Certificate> chain = new ArrayList<>();
        try (InputStream in = Files.newInputStream(nodeCert)) {
            chain.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
        chain.add(caCertificate);
        KeyStore keys = load(nodeStore);
        PrivateKey key = (PrivateKey) keys.getKey("node", PASSWORD.toCharArray());
        keys.setKeyEntry("node", key, PASSWORD.toCharArray(), chain.toArray(new Certificate[0]));
        try (var out = Files.newOutputStream(nodeStore)) {
            keys.store(out, PASSWORD.toCharArray());
        }
        nodeKey = writeKey(nodeStore, dir.resolve("node.key"));
        strangerCert = dir.resolve("stranger.crt");
        Files.writeString(strangerCert, pem("CERTIFICATE", load(strangerStore).getCertificate("stranger").getEncoded()));
        strangerKey = writeKey(strangerStore, dir.resolve("stranger.key"));
    }

    private static TestCertificates shared;

    /**
     * One PKI for every test class in this JVM (keytool takes a second per call), in a temporary
     * directory removed when the JVM exits.
     */
    static synchronized TestCertificates shared() throws Exception {
        if (shared == null) {
            Path dir = Files.createTempDirectory("kv-test-pki");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                } catch (IOException e) {
                    // a temporary directory left behind
                }
            }));
            shared = new TestCertificates(dir);
        }
        return shared;
    }

    /** A client context that trusts the CA and presents no certificate. */
    SSLContext trustingClient() throws Exception {
        return context(null);
    }

    /** A client context that trusts the CA and presents the node's certificate. */
    SSLContext nodeClient() throws Exception {
        return context(nodeStore);
    }

    /**
     * A client context that trusts the CA and presents a self-signed certificate, even though the node
     * asks for one its CA issued (a JDK client would otherwise send none).
     */
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
        javax.net.ssl.KeyManager[] keyManagers = null;
        if (kmf != null) {
            javax.net.ssl.X509KeyManager keys = (javax.net.ssl.X509KeyManager) kmf.getKeyManagers()[0];
            String alias = load(keyStore).aliases().nextElement();
            keyManagers = new javax.net.ssl.KeyManager[] {new javax.net.ssl.X509ExtendedKeyManager() {
                @Override
                public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
                    return new String[] {alias};
                }

                @Override
                public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
                    return alias;
                }

                @Override
                public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers, javax.net.ssl.SSLEngine engine) {
                    return alias;
                }

                @Override
                public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
                    return null;
                }

                @Override
                public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
                    return null;
                }

                @Override
                public X509Certificate[] getCertificateChain(String name) {
                    return keys.getCertificateChain(name);
                }

                @Override
                public PrivateKey getPrivateKey(String name) {
                    return keys.getPrivateKey(name);
                }
            }};
        }
        context.init(keyManagers, tmf.getTrustManagers(), null);
        return context;
    }

    private static Path writeKey(Path store, Path pem) throws Exception {
        KeyStore keys = load(store);
        String alias = keys.aliases().nextElement();
        PrivateKey key = (PrivateKey) keys.getKey(alias, PASSWORD.toCharArray());
        Files.writeString(pem, pem("PRIVATE KEY", key.getEncoded()));
        return pem;
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private static KeyStore load(Path store) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    private static Process keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-keypass", PASSWORD, "-storetype", "PKCS12", "-noprompt"));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static void await(Process keytool) throws IOException, InterruptedException {
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IOException("keytool failed: " + keytool.info().commandLine().orElse("") + ": " + output);
        }
    }
}
