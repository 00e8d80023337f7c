/**
 * The immutable sorted table file (docs/FORMAT.md, "Sorted table"): {@code SsTableWriter} writes one,
 * {@code SsTable} reads one through {@code MappedFile} mappings, with its {@code BlockIndex},
 * {@code BloomFilter} and {@code TableIterator}; {@code Footer}, {@code TableMeta} and
 * {@code BlockHandle} each hold the one encoder and decoder of their structure, and {@code BlockCodec}
 * the block compression. Internal to kv-core: not API, and may change without notice.
 */
package io.kvstore.core.internal.table;
