/**
 * kvstore's storage API: {@link io.kvstore.core.Dao}, a sorted, versioned key-value store whose
 * versions carry timestamps, tombstones and optional expiries, with the one rule for which version of
 * a key wins ({@link io.kvstore.core.Entry#compareVersions}); its options ({@link io.kvstore.core.DaoOptions},
 * {@link io.kvstore.core.Compression}, {@link io.kvstore.core.SyncPolicy},
 * {@link io.kvstore.core.BackgroundPriority}); the engines that implement it
 * ({@link io.kvstore.core.Engine}); and {@link io.kvstore.core.KvStore}, a plain map over it for
 * embedders.
 *
 * <p>Two subpackages are API too: {@code rocksdb}, the RocksDB-backed engine kept for comparison, and
 * {@code hash}, the hash function whose output placement depends on. Everything under
 * {@code internal} (the LSM engine, its table file, its write-ahead log) is not API and may change
 * without notice; {@code PublicApiTest} holds the list of public types. The on-disk formats are
 * described in docs/FORMAT.md.
 */
package io.kvstore.core;
