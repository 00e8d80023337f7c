/**
 * A {@link io.kvstore.core.Dao} on RocksDB ({@code RocksDbDao}), the reference the LSM engine is
 * compared with; it needs the optional rocksdbjni dependency. {@code RocksDbDao} is API, its helpers
 * package-private.
 */
package io.kvstore.core.rocksdb;
