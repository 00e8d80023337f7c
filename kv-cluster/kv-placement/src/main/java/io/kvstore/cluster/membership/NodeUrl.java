package io.kvstore.cluster.membership;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * A node's base URL, {@code http://host:port} or {@code https://host:port}, parsed and checked once
 * wherever one enters (a flag, a cluster map, a join, a client's seed list). The text is kept as given:
 * a node is named by it in the map, so two spellings of one address are two nodes.
 */
public final class NodeUrl {
    private final String text;
    private final String scheme;
    private final String host;
    private final int port;

    private NodeUrl(String text, String scheme, String host, int port) {
        this.text = text;
        this.scheme = scheme;
        this.host = host;
        this.port = port;
    }

    /**
     * @throws IllegalArgumentException naming {@code url} unless it is an {@code http} or {@code https} URL
     *                                  with a host and an explicit port (0 for a lone node that does not
     *                                  know its port yet), and nothing else (no user, path, query or fragment)
     */
    public static NodeUrl parse(String url) {
        if (url == null || url.isEmpty()) {
            throw new IllegalArgumentException("empty node URL");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("bad node URL '" + url + "': " + e.getMessage());
        }
        String scheme = uri.getScheme();
        if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null || uri.getPort() < 0
                || uri.getPort() > 65535 || uri.getRawUserInfo() != null || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("node URL must look like http://host:port or https://host:port, got '"
                    + url + "'");
        }
        return new NodeUrl(url, scheme, uri.getHost(), uri.getPort());
    }

    /**
     * {@link #parse} that also requires {@code scheme}.
     *
     * @throws IllegalArgumentException as {@link #parse}, or naming the scheme the cluster speaks
     */
    public static NodeUrl parse(String url, String scheme) {
        NodeUrl parsed = parse(url);
        if (!parsed.scheme.equals(scheme)) {
            throw new IllegalArgumentException("node URL must look like " + scheme + "://host:port"
                    + (scheme.equals("https") ? " (with TLS)" : " (without TLS)") + ", got '" + url + "'");
        }
        return parsed;
    }

    /** {@code http} or {@code https}. */
    public String scheme() {
        return scheme;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeUrl other && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The URL as given. */
    @Override
    public String toString() {
        return text;
    }
}
