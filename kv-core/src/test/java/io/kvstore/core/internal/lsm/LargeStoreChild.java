package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * Child JVM of {@link HeapIndependenceTest}: fills a store with {@code args[1]} bytes of values under a
 * small -Xmx, reopens it, and reads it back by point reads and one full scan. Exits 0 on success; any
 * failure (including OutOfMemoryError) ends the JVM with a non-zero status.
 */
public final class LargeStoreChild {
    static final int VALUE_BYTES = 1000;

    private LargeStoreChild() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long targetBytes = Long.parseLong(args[1]);
        // Uncompressed: the values are patterned, and the store's size on disk is what the test is about.
        DaoOptions options = DaoOptions.builder(dir).flushThresholdBytes(2 << 20).compression(Compression.NONE).build();
        int keys = (int) (targetBytes / VALUE_BYTES);
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < keys; i++) {
                dao.upsert(Entry.value(key(i), value(i), i));
            }
        }
        try (LsmDao dao = LsmDao.open(options)) {
            Random random = new Random(42);
            for (int n = 0; n < 5000; n++) {
                int i = random.nextInt(keys);
                Entry e = dao.get(key(i));
                if (e == null || !Arrays.equals(value(i), e.value())) {
                    throw new AssertionError("wrong value for key " + i + ": " + e);
                }
                if (dao.get(key(keys + 1 + random.nextInt(keys))) != null) {
                    throw new AssertionError("absent key found");
                }
            }
            long count = 0;
            try (CloseableIterator<Entry> it = dao.range(null, null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (Coding.getLongBigEndian(e.key(), 0) != count) {
                        throw new AssertionError("scan out of order at " + count);
                    }
                    count++;
                }
            }
            if (count != keys) {
                throw new AssertionError("scan saw " + count + " of " + keys + " keys");
            }
        }
        System.out.println("ok " + keys + " keys, max heap " + Runtime.getRuntime().maxMemory());
    }

    static byte[] key(long i) {
        byte[] key = new byte[16];
        for (int b = 0; b < 8; b++) {
            key[b] = (byte) (i >>> (56 - 8 * b));
        }
        return key;
    }

    static byte[] value(int i) {
        byte[] value = new byte[VALUE_BYTES];
        for (int j = 0; j < value.length; j++) {
            value[j] = (byte) (i * 31 + j);
        }
        return value;
    }
}
