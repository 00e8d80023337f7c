/**
 * A kvstore node: {@link io.kvstore.server.KvServer} assembles the storage engine, the replication of
 * kv-cluster and the layers of this module, and {@link io.kvstore.server.Main} runs it from the command
 * line. The layers, each importing only from those before it: {@code wire}, {@code security},
 * {@code config}, {@code internode}, {@code metrics}, {@code http}, {@code membership}, then this
 * package ({@code PackageLayersTest} checks it).
 */
package io.kvstore.server;
