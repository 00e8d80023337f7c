/**
 * The node's meters and their Prometheus endpoint: requests, the coordinator, storage, replication,
 * peers, the cluster map and TLS certificates.
 * Each reads its component when scraped or records on the request path without allocating. Uses the
 * layers below it, down to {@link io.kvstore.server.internode}. Internal: not part of the API.
 */
package io.kvstore.server.metrics;
