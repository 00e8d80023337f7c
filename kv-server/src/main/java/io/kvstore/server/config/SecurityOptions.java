package io.kvstore.server.config;

import static io.kvstore.server.config.NetworkOptions.require;

import io.kvstore.client.TlsEngine;
import io.kvstore.server.security.NodeSecurity;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a node's secrets and TLS material are: the files of the cluster secret and of the admin and
 * client tokens, the PEM certificate, key and CA, and the TLS engine. Building the options reads none
 * of them: the node reads them when it starts, and refuses to start on a file it cannot use;
 * {@link #check()} reads them earlier, for a launcher that reports a bad file as a usage error.
 * Part of a {@link KvServerConfig}.
 */
public final class SecurityOptions {
    /** OpenSSL, for its cheaper handshakes (docs/TUNING.md#tls-engines-openssl-against-the-jdk). */
    public static final TlsEngine DEFAULT_TLS_ENGINE = TlsEngine.OPENSSL;

    private final Path clusterSecretFile;
    private final Path adminTokenFile;
    private final Path clientTokenFile;
    private final Path tlsCertificate;
    private final Path tlsKey;
    private final Path tlsCa;
    private final TlsEngine tlsEngine;

    private SecurityOptions(Builder b) {
        this.clusterSecretFile = b.clusterSecretFile;
        this.adminTokenFile = b.adminTokenFile;
        this.clientTokenFile = b.clientTokenFile;
        this.tlsCertificate = b.tlsCertificate;
        this.tlsKey = b.tlsKey;
        this.tlsCa = b.tlsCa;
        this.tlsEngine = b.tlsEngine;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** No secrets and no TLS. */
    public static SecurityOptions defaults() {
        return builder().build();
    }

    /**
     * The file of the secret every node of the cluster shares (one or two lines: the one in use, then one
     * being rotated), or null. With it, internal and admin requests are signed and checked
     * (docs/OPERATIONS.md#security); the secret itself is read when the node starts and never shown.
     */
    public Path clusterSecretFile() {
        return clusterSecretFile;
    }

    /** The file of the token operators present on admin routes ({@code Authorization: Bearer}), or null. */
    public Path adminTokenFile() {
        return adminTokenFile;
    }

    /** The file of the token clients must present on client routes, or null: client routes are open. */
    public Path clientTokenFile() {
        return clientTokenFile;
    }

    /** The node's PEM certificate (chain), or null: no TLS. */
    public Path tlsCertificate() {
        return tlsCertificate;
    }

    /** The PEM private key of {@link #tlsCertificate()}. */
    public Path tlsKey() {
        return tlsKey;
    }

    /** The PEM CA that issues the nodes' certificates, or null; with it, nodes authenticate each other (mutual TLS). */
    public Path tlsCa() {
        return tlsCa;
    }

    /**
     * The TLS implementation of this node's port and of its connections to peers, as configured; where
     * {@link TlsEngine#OPENSSL} cannot load, {@link TlsEngine#effective()} is the JDK's.
     */
    public TlsEngine tlsEngine() {
        return tlsEngine;
    }

    /** The URL scheme of the nodes: https with TLS. */
    public String scheme() {
        return tlsCertificate == null ? "http" : "https";
    }

    /**
     * Reads every file these options name, as the node does when it starts.
     *
     * @throws IllegalArgumentException naming the option and the file, never a secret, for one that is
     *     missing, unreadable or refused
     */
    public void check() {
        NodeSecurity.load(clusterSecretFile, adminTokenFile, clientTokenFile, tlsCertificate, tlsKey, tlsCa, tlsEngine);
    }

    /** Builds {@link SecurityOptions}; {@link #build()} checks that the TLS settings go together, and reads nothing. */
    public static final class Builder {
        private Path clusterSecretFile;
        private Path adminTokenFile;
        private Path clientTokenFile;
        private Path tlsCertificate;
        private Path tlsKey;
        private Path tlsCa;
        private TlsEngine tlsEngine = DEFAULT_TLS_ENGINE;

        private Builder() {
        }

        /** See {@link SecurityOptions#clusterSecretFile()}; null for none. */
        public Builder clusterSecretFile(Path file) {
            this.clusterSecretFile = file;
            return this;
        }

        /** See {@link SecurityOptions#adminTokenFile()}; null for none. */
        public Builder adminTokenFile(Path file) {
            this.adminTokenFile = file;
            return this;
        }

        /** See {@link SecurityOptions#clientTokenFile()}; null for none. */
        public Builder clientTokenFile(Path file) {
            this.clientTokenFile = file;
            return this;
        }

        /** The node's PEM certificate and private key; with them it listens and connects to peers with TLS. */
        public Builder tls(Path certificate, Path key) {
            this.tlsCertificate = certificate;
            this.tlsKey = key;
            return this;
        }

        /** See {@link SecurityOptions#tlsCa()}. */
        public Builder tlsCa(Path ca) {
            this.tlsCa = ca;
            return this;
        }

        /** See {@link SecurityOptions#tlsEngine()}; default {@link SecurityOptions#DEFAULT_TLS_ENGINE}. */
        public Builder tlsEngine(TlsEngine engine) {
            this.tlsEngine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        public SecurityOptions build() {
            require((tlsCertificate == null) == (tlsKey == null), "--tls-cert and --tls-key go together");
            require(tlsCa == null || tlsCertificate != null, "--tls-ca needs --tls-cert and --tls-key");
            return new SecurityOptions(this);
        }
    }
}
