/**
 * Placement and replication for kvstore, usable by any Java program (no network code here).
 *
 * <ul>
 *   <li>{@link io.kvstore.cluster.Partitioners} creates a {@link io.kvstore.cluster.Partitioner} by name
 *       ({@code ring}, {@code rendezvous}, {@code modn}, {@code jump}, {@code maglev}); all of them hash
 *       keys with {@link io.kvstore.cluster.KeyHash} (XXH64), so placement is the same on every node.</li>
 *   <li>{@link io.kvstore.cluster.ReplicaCoordinator} sends a request to the replicas of a key through
 *       the {@link io.kvstore.cluster.Replica} interface ({@link io.kvstore.cluster.LocalReplica} wraps a
 *       local {@code Dao}; the server supplies a remote one) and decides on the first {@code ack} answers
 *       of a {@link io.kvstore.cluster.Quorum}, or fails with
 *       {@link io.kvstore.cluster.NotEnoughReplicasException}.</li>
 *   <li>{@link io.kvstore.cluster.HybridClock} timestamps every write; the newest timestamp wins.</li>
 * </ul>
 */
package io.kvstore.cluster;
