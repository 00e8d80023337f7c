/**
 * The cluster map as an embedder reads it: the {@link io.kvstore.cluster.membership.ClusterMap} every
 * node holds (epoch, replication factor, partitioner, nodes as {@link io.kvstore.cluster.membership.Member}s
 * in a {@link io.kvstore.cluster.membership.NodeState}, their {@link io.kvstore.cluster.membership.RingTokens}),
 * its JSON form ({@link io.kvstore.cluster.membership.ClusterMapCodec}) and the
 * {@link io.kvstore.cluster.membership.NodeUrl} that names a node. Changes are made by one node at a time,
 * the map's claimant; keeping the map on disk and moving keys when it changes is the node's business
 * ({@code io.kvstore.cluster.internal.membership}), and the server wires the protocol.
 */
package io.kvstore.cluster.membership;
