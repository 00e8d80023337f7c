/**
 * A node's side of membership: its cluster map on disk ({@code ClusterMapStore}), the movement of keys
 * when the map changes ({@code KeyMovement}, {@code KeyMovementCodec}, {@code KeyStreamer}) and the keys
 * it keeps once a change completed ({@code OwnedKeys}, {@code CleanupFilter}). Internal to kv-cluster:
 * not API, and may change without notice.
 */
package io.kvstore.cluster.internal.membership;
