/**
 * A node's configuration: {@link io.kvstore.server.config.KvServerConfig}, built in code or from the
 * command line ({@link io.kvstore.server.config.ServerCommand}), validated when built. Part of the API:
 * an embedder builds one and hands it to {@link io.kvstore.server.KvServer#start}.
 */
package io.kvstore.server.config;
