/**
 * What kv-server and kvctl share with the client beyond its API: the Vert.x side of a
 * {@link io.kvstore.client.TlsEngine} ({@code VertxTls}) and the computation of the cluster's request
 * signature ({@code RequestSigning}). Public only so that the server's connections are set up, and its
 * requests signed, as the client's are; not API, and it may change without notice.
 */
package io.kvstore.client.internal;
