/**
 * Small pieces the engine is built from: byte coding, CRC32C, XXH64, the k-way merge of sorted
 * sources, directory fsync, thread priority. Internal to kv-core: not an API ({@code XxHash64} is
 * also used by kv-cluster's placement).
 */
package io.kvstore.core.util;
