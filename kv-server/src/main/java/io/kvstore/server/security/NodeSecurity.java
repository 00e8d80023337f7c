package io.kvstore.server.security;

import io.kvstore.client.TlsEngine;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A node's secrets and TLS as read from their files when it starts: what signs and checks requests and
 * what its listener and internode clients present. Never printed: {@link Secrets} shows no secret.
 *
 * @param clusterSecrets the secret every node shares, or null: internal requests are not signed
 * @param adminTokens    the tokens of the admin routes, or null
 * @param clientTokens   the tokens of the client routes, or null: they are open
 * @param tls            the node's TLS (no TLS without a certificate)
 */
public record NodeSecurity(Secrets clusterSecrets, Secrets adminTokens, Secrets clientTokens, NodeTls tls) {
    /**
     * Reads the secret files given and checks that the TLS files can be read (Vert.x parses them when the
     * listener and the clients start); a null file is not given.
     *
     * @throws IllegalArgumentException naming the option and the file, never a secret, for one that is
     *     missing, unreadable or refused
     */
    public static NodeSecurity load(Path clusterSecretFile, Path adminTokenFile, Path clientTokenFile,
                                    Path tlsCertificate, Path tlsKey, Path tlsCa, TlsEngine tlsEngine) {
        requireReadable(tlsCertificate, "--tls-cert");
        requireReadable(tlsKey, "--tls-key");
        requireReadable(tlsCa, "--tls-ca");
        return new NodeSecurity(read(clusterSecretFile, "--cluster-secret-file"), read(adminTokenFile, "--admin-token-file"),
                read(clientTokenFile, "--client-token-file"), new NodeTls(tlsCertificate, tlsKey, tlsCa, tlsEngine));
    }

    private static Secrets read(Path file, String option) {
        return file == null ? null : SecretFile.read(file, option);
    }

    private static void requireReadable(Path file, String option) {
        if (file != null && !Files.isReadable(file)) {
            throw new IllegalArgumentException(option + " " + file + " cannot be read");
        }
    }
}
