package io.kvstore.kvctl;

import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import io.kvstore.cluster.membership.NodeUrl;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The options every command shares, given before or after the command's name: which node to talk to,
 * with which credentials, trusting which CA, waiting how long. Credentials come from files or the
 * environment, never from the command line, where every user of the machine can read them.
 */
final class ConnectionOptions {
    static final String DEFAULT_NODE = "http://127.0.0.1:8080";

    @Option(names = "--node", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = "The node to talk to, http://host:port or https://host:port (default: $KVCTL_NODE, else "
                    + DEFAULT_NODE + ").")
    String node;

    @Option(names = "--token-file", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "A file whose first line is the token sent as 'Authorization: Bearer': the node's"
                    + " --admin-token-file for admin commands, its --client-token-file for the others"
                    + " (default: $KVCTL_TOKEN).")
    Path tokenFile;

    @Option(names = "--secret-file", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "The cluster's --cluster-secret-file: requests are signed with it as a node signs its own,"
                    + " which admin and client routes accept, get, put, delete and scan included"
                    + " (default: the file $KVCTL_SECRET_FILE names).")
    Path secretFile;

    @Option(names = "--tls-ca", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "PEM certificate(s) of the CA that issued the nodes' certificates, for https:// nodes"
                    + " (default: the JDK's trusted CAs).")
    Path tlsCa;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "SECONDS", defaultValue = "10",
            description = "How long to wait for a connection, and for an answer to a request that does not run an"
                    + " operation to its end (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** The node's URL, checked. */
    String node(Kvctl kvctl) {
        String url = node != null ? node : kvctl.environment().getOrDefault("KVCTL_NODE", DEFAULT_NODE);
        try {
            return NodeUrl.parse(url.strip()).toString();
        } catch (IllegalArgumentException e) {
            throw KvctlException.usage((node != null ? "--node: " : "KVCTL_NODE: ") + e.getMessage());
        }
    }

    Duration timeout() {
        if (timeoutSeconds < 1) {
            throw KvctlException.usage("--timeout must be at least 1 second, got " + timeoutSeconds);
        }
        return Duration.ofSeconds(timeoutSeconds);
    }

    Credentials credentials(Kvctl kvctl) {
        return Credentials.of(tokenFile, secretFile, kvctl.environment().get("KVCTL_TOKEN"),
                kvctl.environment().get("KVCTL_SECRET_FILE"));
    }

    /** An HTTP client for the node's status, cluster and admin routes. */
    NodeHttp http(Kvctl kvctl) {
        return new NodeHttp(credentials(kvctl), TlsTrust.of(tlsCa), timeout());
    }

    /**
     * The Java client for the data routes, sending every request to {@link #node(Kvctl)}, which coordinates
     * it (kvctl talks to the node it is told to, never to one it chose itself).
     */
    KvClient client(Kvctl kvctl) {
        String url = node(kvctl);
        Credentials credentials = credentials(kvctl);
        KvClient.Builder builder = KvClient.builder().seeds(url).routing(KvClient.Routing.ROUND_ROBIN)
                .timeout(timeout()).refreshInterval(Duration.ZERO).token(credentials.token())
                .clusterSecret(credentials.secret());
        if (tlsCa != null) {
            TlsTrust.of(tlsCa); // a file that holds no certificate is a usage error here, before the client reads it
            builder.trustedCa(tlsCa);
        }
        try {
            return builder.build();
        } catch (KvClientException e) {
            throw KvctlException.fromClient(e);
        }
    }
}
