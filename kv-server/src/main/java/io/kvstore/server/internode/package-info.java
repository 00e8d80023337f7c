/**
 * This node talking to the others: the web clients every internode request goes through (TLS and
 * signing applied once), the replicas and repair peers over HTTP, the batching of calls per peer, the
 * membership client, and {@link io.kvstore.server.internode.Topology}, what one cluster map means for
 * this node's requests. Uses {@link io.kvstore.server.wire}, {@link io.kvstore.server.security} and
 * {@link io.kvstore.server.config}. Internal: not part of the API.
 */
package io.kvstore.server.internode;
