package io.kvstore.core;

/**
 * Which keys a store keeps through {@link Dao#cleanup}: a node of a cluster keeps the keys it is a
 * replica of and gives the others up.
 */
@FunctionalInterface
public interface KeyFilter {
    /**
     * Whether the store keeps {@code key}. Called once per stored key, possibly on a background thread
     * of the store; must not modify the array.
     */
    boolean keeps(byte[] key);
}
