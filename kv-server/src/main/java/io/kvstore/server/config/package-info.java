/**
 * A node's configuration: {@link io.kvstore.server.config.KvServerConfig}, made of the options objects
 * it configures ({@link io.kvstore.core.DaoOptions}, {@link io.kvstore.cluster.ReplicationOptions},
 * {@link io.kvstore.server.config.NetworkOptions}, {@link io.kvstore.server.config.SecurityOptions}),
 * built in code or from the command line ({@link io.kvstore.server.config.ServerCommand}), validated
 * when built without reading any file. Part of the API:
 * an embedder builds one and hands it to {@link io.kvstore.server.KvServer#start}.
 */
package io.kvstore.server.config;
