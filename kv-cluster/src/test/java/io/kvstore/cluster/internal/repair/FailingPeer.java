package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Entry;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A peer that forwards to another and fails its {@link #apply} calls from a chosen one on, as a killed node would. */
class FailingPeer implements RepairPeer {
    private final RepairPeer delegate;
    int failApplyAfter = Integer.MAX_VALUE;
    private int applies;

    FailingPeer(RepairPeer delegate) {
        this.delegate = delegate;
    }

    @Override
    public String node() {
        return delegate.node();
    }

    @Override
    public CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
        return delegate.openTree(partner, replicationFactor, depth, interval);
    }

    @Override
    public CompletionStage<long[]> hashes(long tree, int level, int[] indexes) {
        return delegate.hashes(tree, level, indexes);
    }

    @Override
    public CompletionStage<VersionPage> versions(long tree, BitSet segments, byte[] after, byte[] upTo, int maxVersions) {
        return delegate.versions(tree, segments, after, upTo, maxVersions);
    }

    @Override
    public CompletionStage<EntryBatch> entries(List<byte[]> keys, long maxBytes) {
        return delegate.entries(keys, maxBytes);
    }

    @Override
    public CompletionStage<Void> apply(List<Entry> entries) {
        if (++applies > failApplyAfter) {
            return CompletableFuture.failedFuture(new IOException(node() + " went away"));
        }
        return delegate.apply(entries);
    }

    @Override
    public CompletionStage<Void> closeTree(long tree) {
        return delegate.closeTree(tree);
    }
}
