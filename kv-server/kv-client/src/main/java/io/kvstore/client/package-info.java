/**
 * The Java client of a kvstore cluster over HTTP (protocol v0): {@link io.kvstore.client.KvClient}.
 *
 * <p>It encodes keys as arbitrary bytes (RFC 3986 percent-encoding), maps the protocol's status codes to
 * results and typed exceptions, and sends each request to a live replica of its key, computed with the
 * same partitioner as the nodes, from the cluster map read with the nodes' own codec (kv-placement).
 * Its API speaks plain Java types; the signatures that still name Vert.x types are deprecated.
 * Everything else in this package supports those classes; {@code io.kvstore.client.internal} is what
 * kv-server shares with the client, not API.
 */
package io.kvstore.client;
