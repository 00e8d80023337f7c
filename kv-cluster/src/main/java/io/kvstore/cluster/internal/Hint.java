package io.kvstore.cluster.internal;

import io.kvstore.core.Entry;

/** A write kept for a node that did not acknowledge it: the target and the version to deliver. */
final class Hint {
    final String target;
    final Entry entry;
    /** Its key in the {@link HintStore}. */
    final byte[] storedKey;

    Hint(String target, Entry entry, byte[] storedKey) {
        this.target = target;
        this.entry = entry;
        this.storedKey = storedKey;
    }

    /** What it costs on disk and on the wire, roughly: its stored key and value. */
    long bytes() {
        return storedKey.length + 9L + (entry.isTombstone() ? 0 : entry.value().length);
    }

    @Override
    public String toString() {
        return "Hint{" + target + ", " + entry + '}';
    }
}
