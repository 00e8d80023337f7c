/**
 * kvstore's storage API: {@link io.kvstore.core.Dao}, a sorted, versioned key-value store whose
 * versions carry timestamps, tombstones and optional expiries, with the one rule for which version of
 * a key wins ({@link io.kvstore.core.Entry#compareVersions}); its options ({@link io.kvstore.core.DaoOptions},
 * {@link io.kvstore.core.Compression}, {@link io.kvstore.core.SyncPolicy},
 * {@link io.kvstore.core.BackgroundPriority}); the engines that implement it
 * ({@link io.kvstore.core.Engine}); and {@link io.kvstore.core.KvStore}, a plain map over it for
 * embedders.
 *
 * <p>The subpackages are the engines' internals, laid out as leveldb lays out its own: {@code lsm}
 * (the engine), {@code table} (the table file format), {@code log} (the write-ahead log), {@code util};
 * and {@code rocksdb}, the RocksDB-backed engine kept for comparison. Only the classes this package
 * names are meant for embedders; the on-disk formats are described in docs/FORMAT.md.
 */
package io.kvstore.core;
