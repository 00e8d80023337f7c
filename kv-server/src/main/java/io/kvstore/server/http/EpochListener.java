package io.kvstore.server.http;

/** Told the cluster map epoch an internode request carried, and who sent it. */
@FunctionalInterface
public interface EpochListener {
    /** Nobody listens: requests' epochs are ignored. */
    EpochListener NONE = (epoch, node) -> { };

    void observe(long epoch, String node);
}
