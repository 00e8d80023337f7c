/**
 * The write-ahead log (docs/FORMAT.md, "Write-ahead log"): {@code WriteAheadLog} appends and syncs
 * under a {@code LogSyncer} per sync policy, {@code LogWriter} writes one file and {@code LogReader}
 * replays one. Internal to kv-core: not API, and may change without notice.
 */
package io.kvstore.core.internal.log;
