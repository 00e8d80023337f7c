/**
 * Hash functions whose output is part of kvstore's contract: {@link io.kvstore.core.hash.XxHash64},
 * the one 64-bit hash of the LSM engine's Bloom filters and of cluster placement. A value computed
 * here is the same in every process and release, so it may be stored or sent between nodes.
 */
package io.kvstore.core.hash;
