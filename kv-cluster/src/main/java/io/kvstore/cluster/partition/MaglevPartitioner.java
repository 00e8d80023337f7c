package io.kvstore.cluster.partition;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Maglev hashing (Eisenbud et al., NSDI 2016): a lookup table of prime size M is filled by letting
 * each node, in turn, claim the next free slot of its own permutation (offset + j * skip mod M); a key
 * is table[hash mod M]. Every node owns M/n slots give or take one, so balance is near perfect and a
 * lookup is a single array read; a change of n moves somewhat more than the minimum.
 *
 * <p>Replicas beyond the first: the next slots of the table after the key's slot, skipping nodes
 * already chosen. Slot owners are interleaved pseudo-randomly, so this walk reaches distinct nodes
 * quickly; it is deterministic and prefix-stable.
 */
public final class MaglevPartitioner implements Partitioner {
    /** The table size of the paper for small clusters; larger clusters use the next prime >= 100 n. */
    static final int SMALL_TABLE_SIZE = 65_537;

    private final List<String> nodes;
    private final int[] table;

    public MaglevPartitioner(List<String> nodes) {
        this.nodes = NodeList.validate(nodes);
        int n = this.nodes.size();
        int size = n * 100 <= SMALL_TABLE_SIZE ? SMALL_TABLE_SIZE : nextPrime(n * 100);
        this.table = populate(this.nodes, size);
    }

    private static int[] populate(List<String> nodes, int size) {
        int n = nodes.size();
        long[] offset = new long[n];
        long[] skip = new long[n];
        long[] next = new long[n];
        for (int i = 0; i < n; i++) {
            byte[] name = nodes.get(i).getBytes(StandardCharsets.UTF_8);
            offset[i] = Long.remainderUnsigned(KeyHash.xxh64(name, 0xA5A5A5A5L), size);
            skip[i] = Long.remainderUnsigned(KeyHash.xxh64(name, 0x5A5A5A5AL), size - 1) + 1;
        }
        int[] table = new int[size];
        java.util.Arrays.fill(table, -1);
        int filled = 0;
        while (true) {
            for (int i = 0; i < n; i++) {
                long slot = (offset[i] + next[i] * skip[i]) % size;
                while (table[(int) slot] >= 0) {
                    next[i]++;
                    slot = (offset[i] + next[i] * skip[i]) % size;
                }
                table[(int) slot] = i;
                next[i]++;
                if (++filled == size) {
                    return table;
                }
            }
        }
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public int primary(byte[] key) {
        return table[(int) Long.remainderUnsigned(KeyHash.hash(key), table.length)];
    }

    @Override
    public int[] replicas(byte[] key, int count, int[] out) {
        NodeList.checkCount(count, nodes.size(), out);
        int slot = (int) Long.remainderUnsigned(KeyHash.hash(key), table.length);
        int filled = 0;
        for (int step = 0; filled < count && step < table.length; step++) {
            int node = table[slot];
            if (!NodeList.contains(out, filled, node)) {
                out[filled++] = node;
            }
            slot = slot + 1 == table.length ? 0 : slot + 1;
        }
        return out;
    }

    static int nextPrime(int from) {
        for (int candidate = Math.max(2, from); ; candidate++) {
            if (isPrime(candidate)) {
                return candidate;
            }
        }
    }

    private static boolean isPrime(int v) {
        if (v < 4) {
            return v >= 2;
        }
        if (v % 2 == 0) {
            return false;
        }
        for (int d = 3; (long) d * d <= v; d += 2) {
            if (v % d == 0) {
                return false;
            }
        }
        return true;
    }
}
