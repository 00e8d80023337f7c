/**
 * Who may call what: secrets read from files, request signatures made and checked with the cluster
 * secret, the bearer tokens of clients and operators, the gate every request passes first
 * ({@link io.kvstore.server.security.Authenticator}) and the node's TLS. Uses only
 * {@link io.kvstore.server.wire}. Internal: not part of the API.
 */
package io.kvstore.server.security;
