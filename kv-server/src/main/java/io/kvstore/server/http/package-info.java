/**
 * The HTTP front end: the router (admission, dispatch by path), the handlers of the client, internal,
 * repair and status routes, body reading within the node's limits, slow-client guards and cluster
 * ranges. Uses every layer below it; the membership routes are handed to the router as a handler.
 * Internal: not part of the API.
 */
package io.kvstore.server.http;
