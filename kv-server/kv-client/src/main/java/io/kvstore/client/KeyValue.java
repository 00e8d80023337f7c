package io.kvstore.client;

/**
 * One entry of a range: a key and its value, as the node sent them. The arrays are the caller's to
 * keep; they are not copied.
 */
public record KeyValue(byte[] key, byte[] value) {
}
