/**
 * Cluster metadata agreed by a majority: one single-decree Paxos instance per map epoch, so that two
 * changes can never both make epoch E+1. The acceptors of epoch E+1 are the metadata group the map
 * of epoch E names ({@code MetadataGroup}); a proposer ({@code EpochProposer}) talks to them through an
 * {@code EpochTransport}, which is HTTP in the server and a simulated network in tests. Internal to
 * kv-cluster: not API, and may change without notice.
 */
package io.kvstore.cluster.internal.metadata;
