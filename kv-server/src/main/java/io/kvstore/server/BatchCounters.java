package io.kvstore.server;

/** How a node's calls to its peers went out in batches, one count per kind of call, all peers together. */
record BatchCounters(RoundBatcher.Counters reads, RoundBatcher.Counters writes) {
    BatchCounters() {
        this(new RoundBatcher.Counters(), new RoundBatcher.Counters());
    }
}
