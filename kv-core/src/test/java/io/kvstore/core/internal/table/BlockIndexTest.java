package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link BlockIndex#find} agrees with a linear search over the last keys, whatever prefix the keys
 * share: none, shorter than the 8 bytes the index keeps per block, as long, longer.
 */
class BlockIndexTest {
    private static final byte[] HANDLE = new byte[16];

    @ParameterizedTest(name = "shared prefix of {0} bytes")
    @ValueSource(ints = {0, 1, 5, 8, 11, 24})
    void findAgreesWithALinearSearch(int sharedLength) {
        long seed = System.nanoTime();
        System.out.println("BlockIndexTest seed " + seed + ", shared prefix " + sharedLength);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 20; round++) {
            byte[] shared = bytes(random, sharedLength);
            List<byte[]> lastKeys = lastKeys(random, shared, 1 + random.nextInt(300));
            BlockIndex index = index(lastKeys);
            List<byte[]> probes = probes(random, shared, lastKeys);
            for (byte[] probe : probes) {
                assertEquals(linearFind(lastKeys, probe), index.find(probe),
                        () -> "seed " + seed + ": key " + HexFormat.of().formatHex(probe));
            }
        }
    }

    @Test
    void keysOfTheShapeOfYcsbRecordsFindTheirBlock() {
        List<byte[]> lastKeys = new ArrayList<>();
        for (long user = 1_000_000; user < 1_000_000 + 5_000 * 7; user += 7) {
            lastKeys.add(("usertable:user" + user).getBytes(StandardCharsets.US_ASCII));
        }
        BlockIndex index = index(lastKeys);
        for (long user = 999_990; user < 1_000_000 + 5_000 * 7 + 10; user++) {
            byte[] key = ("usertable:user" + user).getBytes(StandardCharsets.US_ASCII);
            assertEquals(linearFind(lastKeys, key), index.find(key), "user" + user);
        }
        assertEquals(0, index.find("usertable:".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(0, index.find(new byte[0]));
        assertEquals(lastKeys.size(), index.find("usertablf".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void anEmptyIndexFindsNothing() {
        BlockIndex index = index(List.of());
        assertEquals(0, index.find(new byte[0]));
        assertEquals(0, index.find(new byte[] {1, 2, 3}));
    }

    /** Sorted distinct keys that begin with {@code shared}, some ending right after it, some with zero or 0xFF runs. */
    private static List<byte[]> lastKeys(SplittableRandom random, byte[] shared, int count) {
        TreeSet<byte[]> keys = new TreeSet<>(Bytes.ORDER);
        while (keys.size() < count) {
            keys.add(withShared(random, shared));
        }
        return new ArrayList<>(keys);
    }

    private static byte[] withShared(SplittableRandom random, byte[] shared) {
        byte[] tail = bytes(random, random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(20));
        if (tail.length > 0 && random.nextInt(4) == 0) {
            byte fill = random.nextBoolean() ? 0 : (byte) 0xFF;
            Arrays.fill(tail, random.nextInt(tail.length), tail.length, fill);
        }
        byte[] key = new byte[shared.length + tail.length];
        System.arraycopy(shared, 0, key, 0, shared.length);
        System.arraycopy(tail, 0, key, shared.length, tail.length);
        return key;
    }

    /** The last keys themselves, their neighbours, new keys of the same shape, and keys outside the shared prefix. */
    private static List<byte[]> probes(SplittableRandom random, byte[] shared, List<byte[]> lastKeys) {
        List<byte[]> probes = new ArrayList<>(lastKeys);
        for (byte[] key : lastKeys) {
            probes.add(Arrays.copyOf(key, key.length + 1)); // just after
            if (key.length > 0) {
                probes.add(Arrays.copyOf(key, key.length - 1)); // a prefix, just before
            }
        }
        for (int i = 0; i < 200; i++) {
            probes.add(withShared(random, shared));
            probes.add(bytes(random, random.nextInt(shared.length + 10)));
        }
        for (int cut = 0; cut <= shared.length; cut++) {
            probes.add(Arrays.copyOf(shared, cut));
        }
        if (shared.length > 0) {
            for (int delta : new int[] {-1, 1}) {
                byte[] off = shared.clone();
                off[shared.length - 1] += (byte) delta;
                probes.add(off);
                probes.add(Arrays.copyOf(off, shared.length + 5));
            }
        }
        return probes;
    }

    private static byte[] bytes(SplittableRandom random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    private static int linearFind(List<byte[]> lastKeys, byte[] key) {
        for (int i = 0; i < lastKeys.size(); i++) {
            if (Bytes.ORDER.compare(lastKeys.get(i), key) >= 0) {
                return i;
            }
        }
        return lastKeys.size();
    }

    /** An index block as the table writer lays it out: each block's last key with its handle. */
    private static BlockIndex index(List<byte[]> lastKeys) {
        BlockBuilder builder = new BlockBuilder();
        for (byte[] key : lastKeys) {
            builder.add(key, key.length, HANDLE, 0, Entry.NEVER);
        }
        builder.finish();
        ByteBuffer buf = ByteBuffer.wrap(builder.buffer(), 0, builder.size()).order(ByteOrder.LITTLE_ENDIAN);
        return new BlockIndex(buf, 0, builder.size());
    }
}
