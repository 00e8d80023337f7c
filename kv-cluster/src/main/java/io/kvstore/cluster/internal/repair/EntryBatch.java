package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Entry;
import java.util.List;

/**
 * Entries read for a list of keys (see {@link RepairPeer#entries}).
 *
 * @param entries  the entries found, in the order of the keys asked for; a key the store does not
 *                 hold has none
 * @param keysRead how many of the keys asked for, from the first, were looked up: the caller asks
 *                 again for the rest
 */
public record EntryBatch(List<Entry> entries, int keysRead) {
}
