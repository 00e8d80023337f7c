/**
 * Online membership: the {@link io.kvstore.cluster.membership.ClusterMap} every node holds (epoch,
 * replication factor, partitioner, nodes and their states), kept in the data directory by
 * {@link io.kvstore.cluster.internal.membership.ClusterMapStore}, and the movement of keys when the map changes
 * ({@link io.kvstore.cluster.internal.membership.KeyMovement}, {@link io.kvstore.cluster.internal.membership.KeyStreamer}) and
 * the keys a node keeps once a change completed ({@link io.kvstore.cluster.internal.membership.OwnedKeys}).
 * Changes are made by one node at a time, the map's claimant; the server wires the protocol.
 */
package io.kvstore.cluster.membership;
