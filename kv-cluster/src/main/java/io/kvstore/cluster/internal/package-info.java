/**
 * What a node needs from kv-cluster beyond its API: the durable hint store and its replay
 * ({@code HintedHandoff}), the ring token allocator ({@code TokenAllocator}, kv-placement's); and, in sub-packages,
 * the cluster map's storage and key movement ({@code membership}) and anti-entropy ({@code repair}).
 * Classes here are public only so that kv-server can wire them; they are not API and may change or
 * disappear without notice. Embedders use {@link io.kvstore.cluster} and
 * {@link io.kvstore.cluster.membership}.
 */
package io.kvstore.cluster.internal;
