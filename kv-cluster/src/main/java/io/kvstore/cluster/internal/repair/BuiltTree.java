package io.kvstore.cluster.internal.repair;

/**
 * A hash tree a peer built for an exchange ({@link RepairPeer#openTree}).
 *
 * @param id   names the tree in the calls that read it
 * @param keys the entries the peer's scan put in it: its keys shared with the partner within the
 *             exchange's interval; {@code -1} if the peer did not say
 */
public record BuiltTree(long id, long keys) {
}
