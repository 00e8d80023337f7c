/**
 * What kv-server shares with the client beyond its API: the Vert.x side of a {@link io.kvstore.client.TlsEngine}
 * ({@code VertxTls}). Public only so that the server's connections are set up as the client's are; not API, and
 * it may change without notice.
 */
package io.kvstore.client.internal;
