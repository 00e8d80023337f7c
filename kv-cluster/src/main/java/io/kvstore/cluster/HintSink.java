package io.kvstore.cluster;

import io.kvstore.core.Entry;

/**
 * Where the coordinator hands a write that a replica did not acknowledge (an error or a timeout), to be
 * delivered later: a node's hinted handoff keeps it durably and replays it once the replica is back.
 * Must return at once, never block.
 */
public interface HintSink {

    /** Node {@code node} (an index in placement order) did not acknowledge {@code entry}. */
    void hint(int node, Entry entry);
}
