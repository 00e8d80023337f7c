package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A power cut in the middle of writes, flushes and compactions: a store whose sync policy promises
 * durability reopens with every write it acknowledged, and one whose policy does not is seen to lose
 * writes (so the cut is real).
 */
class LsmDaoPowerCutTest {
    private static final int WRITERS = 2;
    private static final int KEYS_PER_WRITER = 300;

    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    DaoOptions options(SyncPolicy policy) {
        return DaoOptions.builder(dir).storage(storage).syncPolicy(policy).flushThresholdBytes(8 << 10)
                .blockSizeBytes(1024).compactionTrigger(3).build();
    }

    static byte[] key(int writer, int key) {
        return ("w" + writer + "-k" + key).getBytes(StandardCharsets.UTF_8);
    }

    /** A value that says which write of its writer it is: its sequence number, then filler. */
    static byte[] value(long sequence, int length) {
        byte[] value = new byte[8 + length];
        Coding.putLong(value, 0, sequence);
        return value;
    }

    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"EVERY_WRITE", "GROUP_COMMIT"})
    void aPowerCutKeepsEveryAcknowledgedWrite(SyncPolicy policy) throws Exception {
        long seed = Seeds.seed("LsmDaoPowerCutTest." + policy);
        Random random = new Random(seed);
        int cutAfter = 200 + random.nextInt(400);
        // acknowledged[w][k]: the sequence number of writer w's last acknowledged write of key k (0: none).
        long[][] acknowledged = new long[WRITERS][KEYS_PER_WRITER];
        AtomicLong acknowledgedWrites = new AtomicLong();
        CountDownLatch enough = new CountDownLatch(1);
        LsmDao dao = LsmDao.open(options(policy));
        List<Thread> writers = new ArrayList<>();
        try {
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                long writerSeed = random.nextLong();
                Thread thread = new Thread(() -> {
                    Random own = new Random(writerSeed);
                    for (long sequence = 1; ; sequence++) {
                        int k = own.nextInt(KEYS_PER_WRITER);
                        try {
                            dao.upsert(Entry.value(key(writer, k), value(sequence, own.nextInt(200)), sequence));
                        } catch (IOException | RuntimeException powerCut) {
                            return;
                        }
                        acknowledged[writer][k] = sequence;
                        if (acknowledgedWrites.incrementAndGet() == cutAfter) {
                            enough.countDown();
                        }
                    }
                }, "writer-" + w);
                thread.start();
                writers.add(thread);
            }
            enough.await();
            storage.powerCut();
            for (Thread thread : writers) {
                thread.join(60_000);
                assertTrue(!thread.isAlive(), "writers stop once the disk is gone");
            }
        } finally {
            LsmDaoDiskFaultTest.closeQuietly(dao);
        }
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options(policy))) {
            for (int w = 0; w < WRITERS; w++) {
                for (int k = 0; k < KEYS_PER_WRITER; k++) {
                    if (acknowledged[w][k] == 0) {
                        continue;
                    }
                    Entry found = reopened.get(key(w, k));
                    assertNotNull(found, "writer " + w + "'s acknowledged write of key " + k + " lost (seed " + seed + ")");
                    // The write in flight at the cut may have landed too, never an older one.
                    assertTrue(Coding.getLong(found.value(), 0) >= acknowledged[w][k],
                            "writer " + w + "'s key " + k + " went back from write " + acknowledged[w][k] + " to "
                                    + Coding.getLong(found.value(), 0) + " (seed " + seed + ")");
                }
            }
        }
    }

    @Test
    void withoutASyncingPolicyAPowerCutLosesWhatNoFsyncCovered() throws IOException {
        DaoOptions options = options(SyncPolicy.NONE).toBuilder().flushThresholdBytes(1 << 20).build();
        LsmDao dao = LsmDao.open(options);
        try {
            for (int k = 0; k < 100; k++) {
                dao.upsert(Entry.value(key(0, k), value(1, 10), 1));
            }
            storage.powerCut();
        } finally {
            LsmDaoDiskFaultTest.closeQuietly(dao);
        }
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options)) {
            int kept = 0;
            for (int k = 0; k < 100; k++) {
                kept += reopened.get(key(0, k)) == null ? 0 : 1;
            }
            assertEquals(0, kept, "the log was never forced, nor its name made durable");
        }
    }
}
