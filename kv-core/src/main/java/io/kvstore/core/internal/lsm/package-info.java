/**
 * The log-structured merge-tree engine. {@link io.kvstore.core.internal.lsm.LsmDao} is the facade and
 * the one public class, opened through {@link io.kvstore.core.Engine#LSM}; behind it, package-private,
 * its parts as leveldb names them: {@code WriteController} (log, memtable, stalls), {@code Memtable}, {@code Flusher}, {@code Compactor} with the
 * {@code Compaction} its {@code CompactionPicker} chooses, {@code TableBuilder}, {@code VersionSet}
 * (current {@code Version}, file numbers, {@code Manifest}, table lifetime), {@code Recovery}, and
 * {@code ResidencyPolicy}, which decides which reads may run on an event loop.
 * Internal to kv-core: not API, and may change without notice.
 */
package io.kvstore.core.internal.lsm;
