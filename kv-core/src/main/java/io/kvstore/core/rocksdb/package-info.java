/**
 * A {@link io.kvstore.core.Dao} on RocksDB ({@code RocksDbDao}), the reference the LSM engine is
 * compared with; it needs the optional rocksdbjni dependency.
 */
package io.kvstore.core.rocksdb;
