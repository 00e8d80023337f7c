/**
 * One budget of bytes per second for a node's background work, shared by compactions, membership
 * streams, hint replay, repair scans and scrubs, and set from what the foreground leaves
 * (docs/TUNING.md, background budget). A store draws from it once it is given one in
 * {@link io.kvstore.core.DaoOptions#backgroundBudget()}; without one every kind keeps its own rate.
 */
package io.kvstore.core.background;
