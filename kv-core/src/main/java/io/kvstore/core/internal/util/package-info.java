/**
 * Small pieces the engine is built from: byte coding, CRC32C, the k-way merge of sorted sources,
 * directory fsync, thread priority, the write-back of files being written. Internal to kv-core: not API,
 * and may change without notice.
 */
package io.kvstore.core.internal.util;
