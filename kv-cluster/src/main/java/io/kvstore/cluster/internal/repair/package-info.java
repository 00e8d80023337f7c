/**
 * Anti-entropy: brings two replicas of the same keys back in sync by comparing hash trees of their
 * stores and exchanging only the rows that differ.
 *
 * <p>For a pair of nodes, each side scans its own store (a throttled pass over a snapshot) and keeps
 * the keys both nodes should hold: those whose first {@code RF} replicas include both. Each kept key
 * falls in one of {@code 2^depth} segments by the top bits of its placement hash ({@code KeyHash}); a
 * segment's hash combines the hashes of its entries' (key, timestamp, tombstone). The trees are
 * compared top-down; for the segments that differ the two sides list their (key, timestamp) pairs in
 * key order, page by page, and each side is sent only the entries it lacks or holds older. An exchange
 * may be restricted to a key interval ({@link io.kvstore.cluster.internal.repair.KeyInterval}): both
 * sides then scan and list that interval's keys only, which is how a node refetches the interval of a
 * damaged table to heal it.
 *
 * <ul>
 *   <li>{@link io.kvstore.cluster.internal.repair.RepairPeer}: what one side of an exchange answers,
 *       locally or over the network;</li>
 *   <li>{@link io.kvstore.cluster.internal.repair.RepairResponder}: that side served from a local
 *       store;</li>
 *   <li>{@link io.kvstore.cluster.internal.repair.RepairExchange}: one exchange between two peers,
 *       driven from one of them, ending in a {@link io.kvstore.cluster.internal.repair.RepairSummary};</li>
 *   <li>{@link io.kvstore.cluster.internal.repair.AntiEntropy}: an exchange with every peer, now or on
 *       an interval.</li>
 * </ul>
 *
 * <p>Internal to kv-cluster: not API, and may change without notice.
 */
package io.kvstore.cluster.internal.repair;
