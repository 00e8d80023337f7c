/**
 * The node's side of online membership: following the cluster map, the claimant's changes
 * ({@link io.kvstore.cluster.internal.membership.MapChanges}), cleanups after them and the membership routes.
 * The highest layer below the node's assembly ({@link io.kvstore.server.KvServer}). Internal: not part
 * of the API.
 */
package io.kvstore.server.membership;
