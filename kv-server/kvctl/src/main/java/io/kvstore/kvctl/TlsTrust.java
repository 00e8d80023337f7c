package io.kvstore.kvctl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS context of kvctl's requests to https:// nodes: trusting the CA certificates of a PEM file
 * ({@code --tls-ca}, the file the nodes verify each other with), else the JDK's trusted CAs. Host names
 * are verified against the nodes' certificates as for any HTTPS client.
 */
final class TlsTrust {
    private TlsTrust() {
    }

    /** The context trusting {@code caFile}, or the JDK's default context for null. */
    static SSLContext of(Path caFile) {
        try {
            if (caFile == null) {
                return SSLContext.getDefault();
            }
            Collection<? extends Certificate> certificates;
            try (InputStream in = Files.newInputStream(caFile)) {
                certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            }
            if (certificates.isEmpty()) {
                throw KvctlException.usage("--tls-ca " + caFile + " holds no PEM certificate");
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (NoSuchFileException e) {
            throw KvctlException.usage("--tls-ca " + caFile + " does not exist");
        } catch (IOException | GeneralSecurityException e) {
            throw KvctlException.usage("--tls-ca " + caFile + " cannot be read as PEM certificates: " + KvctlException.describe(e));
        }
    }
}
