/**
 * The LSM engine's internals: {@code lsm} (the engine), {@code table} (the sorted table file),
 * {@code log} (the write-ahead log) and {@code util} (the small pieces they share). Classes here are
 * public only so that these packages can use one another; they are not API and may change or
 * disappear without notice. Embedders open the engine through {@link io.kvstore.core.Engine#LSM}.
 */
package io.kvstore.core.internal;
