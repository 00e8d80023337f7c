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
 *
 * <p>The partitioners, {@code KeyHash} and the cluster map ({@link io.kvstore.cluster.membership}) are
 * kv-placement's, a jar of their own that a client places keys with too; the rest of this package is
 * kv-cluster's. kv-cluster's API is what an embedder needs to coordinate reads and writes over replicas
 * of its own, plus every type those signatures name: here {@code Replica}, {@code LocalReplica},
 * {@code ReplicaCoordinator}, {@code ReplicaEndpoint}, {@code Quorum}, {@code ReplicationOptions},
 * {@code ReadRepair}, {@code HybridClock} and the {@code ClockLease} that keeps it monotonic over a
 * restart, {@code FailureDetector} and its {@code PeerState}, the {@code HintSink} and
 * {@code StaleWriteSink} a coordinator reports to, and the exceptions
 * ({@code InvalidQuorumException}, {@code NotEnoughReplicasException}, {@code StaleEpochException},
 * {@code TimestampOutOfBoundsException}). What only a node needs (hint storage, token allocation, the
 * map's storage, key movement, anti-entropy) lives under {@code io.kvstore.cluster.internal}: public so
 * that kv-server can wire it, not API, and it may change without notice. {@code PublicApiTest} holds
 * this list, kv-placement's {@code PlacementApiTest} that of the placement types.
 */
package io.kvstore.cluster;
