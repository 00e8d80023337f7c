package io.kvstore.server.internode;

/** How a node's calls to its peers went out in batches, one count per kind of call, all peers together. */
public record BatchCounters(RoundBatcher.Counters reads, RoundBatcher.Counters writes) {
    public BatchCounters() {
        this(new RoundBatcher.Counters(), new RoundBatcher.Counters());
    }
}
