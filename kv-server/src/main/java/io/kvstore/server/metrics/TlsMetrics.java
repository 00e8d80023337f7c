package io.kvstore.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the node's TLS certificates expire, as {@code kv_tls_certificate_expiry_seconds} by role ({@code node}
 * for {@code --tls-cert}, {@code ca} for {@code --tls-ca}): the earliest {@code notAfter} among the certificates
 * of the file, in seconds since the epoch, so that an alert can warn before handshakes start failing. The files
 * are read once, when the node starts, as the listener and the internode clients read them.
 */
public final class TlsMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(TlsMetrics.class);

    private TlsMetrics() {
    }

    /** Registers a gauge for each file given; {@code null} files (no TLS, no CA) have none. */
    public static void bind(MeterRegistry registry, Path certificate, Path ca) {
        bind(registry, "node", certificate);
        bind(registry, "ca", ca);
    }

    private static void bind(MeterRegistry registry, String role, Path file) {
        if (file == null) {
            return;
        }
        double notAfter;
        try {
            notAfter = earliestNotAfter(file);
        } catch (IOException | CertificateException e) {
            // The node already loaded the file, so this is unlikely; the metric is left out rather than the node stopped.
            LOG.warn("cannot read the expiry of {} for /metrics: {}", file, e.getMessage());
            return;
        }
        Gauge.builder("kv.tls.certificate.expiry", () -> notAfter)
                .description("When the node's TLS certificates expire: the earliest notAfter in the file, in seconds since the epoch")
                .baseUnit("seconds").tag("role", role)
                .strongReference(true).register(registry);
    }

    /** The earliest {@code notAfter} of the PEM certificates in {@code file}, in seconds since the epoch. */
    static double earliestNotAfter(Path file) throws IOException, CertificateException {
        long earliest = Long.MAX_VALUE;
        try (InputStream in = Files.newInputStream(file)) {
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                earliest = Math.min(earliest, ((X509Certificate) certificate).getNotAfter().getTime());
            }
        }
        if (earliest == Long.MAX_VALUE) {
            throw new CertificateException("no certificate in " + file);
        }
        return earliest / 1000.0;
    }
}
