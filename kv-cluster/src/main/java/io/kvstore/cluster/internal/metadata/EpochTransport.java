package io.kvstore.cluster.internal.metadata;

import java.util.concurrent.CompletionStage;

/**
 * How a proposer reaches the acceptors: the signed internal routes in the server, a simulated network in
 * tests. A request that gets no answer completes exceptionally (or never: the proposer's own timeout
 * covers that).
 */
@FunctionalInterface
public interface EpochTransport {
    CompletionStage<EpochReply> send(String acceptor, EpochRequest request);
}
