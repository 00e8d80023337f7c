/**
 * The node's protocol as names and bytes, with no I/O of its own: every route and header
 * ({@link io.kvstore.server.wire.Routes}, {@link io.kvstore.server.wire.Headers}), query parameters,
 * the encodings of the internal, batched, repair and range routes, and the shape of error answers. The
 * lowest layer of the server: both the side that serves a route and the side that calls it use it.
 * Internal: not part of the API.
 */
package io.kvstore.server.wire;
