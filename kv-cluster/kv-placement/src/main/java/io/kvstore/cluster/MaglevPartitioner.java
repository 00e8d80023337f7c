package io.kvstore.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Maglev hashing (Eisenbud et al., NSDI 2016): a lookup table of prime size {@code M} filled by the
 * nodes in turns, each claiming the next free slot of its own permutation
 * {@code (offset + j * skip) mod M}; a key goes to {@code table[reduce(hash64(key), M)]}, one array
 * read. Every node holds {@code floor(M/n)} or {@code ceil(M/n)} slots, so load is near-perfect.
 *
 * <p>{@code M} is the smallest prime {@code >= max(65537, 100 n)}, as the paper advises ({@code M >> n}
 * keeps disruption low). {@code offset = hash64(name, 0x6d61676c6576L) mod M},
 * {@code skip = hash64(name, 0x736b6970L) mod (M - 1) + 1}.
 *
 * <p>Replicas beyond the first: re-mixed probes of the table, see {@link ProbingPartitioner}. (Walking
 * the table forward from the key's slot would be cheaper, but neighbouring slots are correlated by the
 * fill order and left secondaries 13% off balance.) Changing the node set moves a little more than
 * {@code 1/(n+1)} of the keys.
 */
final class MaglevPartitioner extends ProbingPartitioner {
    static final int MIN_TABLE_SIZE = 65537;
    private static final long OFFSET_SEED = 0x6d61676c6576L;
    private static final long SKIP_SEED = 0x736b6970L;

    private final int[] table;

    MaglevPartitioner(List<String> nodes) {
        super("maglev", nodes);
        this.table = populate(nodes, tableSizeFor(size));
    }

    @Override
    int nodeOf(long hash) {
        return table[KeyHash.reduce(hash, table.length)];
    }

    int tableSize() {
        return table.length;
    }

    /** How many table slots each node owns (diagnostics and tests). */
    int[] slotsPerNode() {
        int[] slots = new int[size];
        for (int node : table) {
            slots[node]++;
        }
        return slots;
    }

    static int tableSizeFor(int nodeCount) {
        long wanted = Math.max(MIN_TABLE_SIZE, 100L * nodeCount);
        if (wanted > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("maglev partitioner: too many nodes (" + nodeCount + ")");
        }
        int candidate = (int) wanted;
        while (!isPrime(candidate)) {
            candidate++;
        }
        return candidate;
    }

    private static int[] populate(List<String> nodes, int tableSize) {
        int n = nodes.size();
        long[] offset = new long[n];
        long[] skip = new long[n];
        long[] next = new long[n];
        for (int i = 0; i < n; i++) {
            byte[] name = nodes.get(i).getBytes(StandardCharsets.UTF_8);
            offset[i] = Long.remainderUnsigned(KeyHash.hash64(name, OFFSET_SEED), tableSize);
            skip[i] = Long.remainderUnsigned(KeyHash.hash64(name, SKIP_SEED), tableSize - 1) + 1;
        }
        int[] table = new int[tableSize];
        Arrays.fill(table, -1);
        int filled = 0;
        while (true) {
            for (int i = 0; i < n; i++) {
                // M is prime and 1 <= skip < M, so node i's permutation visits every slot: this ends.
                int slot = (int) ((offset[i] + next[i] * skip[i]) % tableSize);
                while (table[slot] >= 0) {
                    next[i]++;
                    slot = (int) ((offset[i] + next[i] * skip[i]) % tableSize);
                }
                table[slot] = i;
                next[i]++;
                if (++filled == tableSize) {
                    return table;
                }
            }
        }
    }

    private static boolean isPrime(int value) {
        if (value < 2) {
            return false;
        }
        if (value % 2 == 0) {
            return value == 2;
        }
        for (int divisor = 3; (long) divisor * divisor <= value; divisor += 2) {
            if (value % divisor == 0) {
                return false;
            }
        }
        return true;
    }
}
