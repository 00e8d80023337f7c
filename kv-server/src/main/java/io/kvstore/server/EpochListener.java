package io.kvstore.server;

/** Told the cluster map epoch an internode request carried, and who sent it. */
@FunctionalInterface
interface EpochListener {
    /** Nobody listens: requests' epochs are ignored. */
    EpochListener NONE = (epoch, node) -> { };

    void observe(long epoch, String node);
}
