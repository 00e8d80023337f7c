package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.WritesStoppedException;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.closeQuietly;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random writes, deletes, flushes and compactions on a disk that fills up now and then (and is given
 * space again) and fails an fsync now and then, checked against a model: a write refused for space is
 * never stored; a write that failed otherwise may or may not be; a store whose writes stopped is
 * reopened, after a power cut half the time; and after every reopen each key holds its last
 * acknowledged version or one of the failed writes after it. Replay a failure with -Dkv.seed=N.
 */
class LsmDaoRandomFaultTest {
    private static final int KEYS = 64;
    private static final int OPERATIONS = 1000;

    @TempDir
    Path dir;

    /** What a key may read as: its last acknowledged version (0: none or deleted) and failed writes since. */
    private static final class Expected {
        long acknowledged;
        final Set<Long> inDoubt = new HashSet<>();

        boolean allows(long found) {
            return found == acknowledged || inDoubt.contains(found);
        }
    }

    private static byte[] key(int k) {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The version a read finds: the write's operation number, or 0 for none or a tombstone (which a
     * compaction may leave out once it shadows nothing).
     */
    private static long version(Entry found) {
        return found == null || found.isTombstone() ? 0 : Coding.getLong(found.value(), 0);
    }

    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"EVERY_WRITE", "GROUP_COMMIT"})
    void everyAcknowledgedWriteOutlastsRandomFullDisksFailedFsyncsAndPowerCuts(SyncPolicy policy) throws IOException {
        long seed = Seeds.seed("LsmDaoRandomFaultTest." + policy);
        Random random = new Random(seed);
        FaultyStorage storage = new FaultyStorage();
        DaoOptions options = DaoOptions.builder(dir).storage(storage).syncPolicy(policy).groupCommitIntervalMillis(1)
                .compactionStyle(random.nextBoolean() ? CompactionStyle.LEVELED : CompactionStyle.SIZE_TIERED)
                .compactionTrigger(2 + random.nextInt(3)).flushThresholdBytes(4096).blockSizeBytes(512)
                .maxFrozenMemtables(1 + random.nextInt(2)).minFreeBytes(0).build();
        Expected[] model = new Expected[KEYS];
        for (int k = 0; k < KEYS; k++) {
            model[k] = new Expected();
        }
        List<String> events = new ArrayList<>();
        int fullDisksUntil = -1;
        int reopens = 0;
        LsmDao dao = LsmDao.open(options);
        try {
            for (int op = 1; op <= OPERATIONS; op++) {
                String context = "seed " + seed + ", op " + op + ", after " + events;
                int dice = random.nextInt(1000);
                if (dice < 8 && fullDisksUntil < 0) {
                    storage.noSpace(".*", 1 + random.nextInt(40));
                    fullDisksUntil = op + 5 + random.nextInt(60);
                    events.add("full disk at " + op);
                } else if (dice < 12) {
                    storage.failNth(Op.FSYNC, ".*", 1 + random.nextInt(40),
                            random.nextBoolean() ? FaultyStorage.NO_SPACE : "Input/output error");
                    events.add("failing fsync at " + op);
                }
                if (op == fullDisksUntil) {
                    storage.repair(); // space again (and the pending fsync faults gone with the rest)
                    fullDisksUntil = -1;
                    events.add("space again at " + op);
                }
                int k = random.nextInt(KEYS);
                int kind = random.nextInt(100);
                try {
                    if (kind < 70) {
                        byte[] value = new byte[8 + random.nextInt(300)];
                        Coding.putLong(value, 0, op);
                        dao.upsert(Entry.value(key(k), value, op));
                        model[k].acknowledged = op;
                        model[k].inDoubt.clear();
                    } else if (kind < 85) {
                        dao.upsert(Entry.tombstone(key(k), op));
                        model[k].acknowledged = 0;
                        model[k].inDoubt.clear();
                    } else if (kind < 95) {
                        long found = version(dao.get(key(k)));
                        assertTrue(model[k].allows(found), context + ": key " + k + " reads " + found
                                + ", expected " + model[k].acknowledged + " or one of " + model[k].inDoubt);
                    } else if (kind < 98) {
                        dao.flush();
                    } else {
                        dao.compact();
                    }
                } catch (InsufficientStorageException refused) {
                    // Nothing of a refused write is stored: the model stays as it is.
                } catch (IOException failed) {
                    if (kind < 85) {
                        model[k].inDoubt.add(kind < 70 ? (long) op : 0L);
                    }
                }
                if (dao.diskSpace().stopsWrites()) {
                    assertTrue(dao.diskSpace().writesStopped().contains(dir.toString()), context + ": " + dao.diskSpace());
                    boolean cut = random.nextBoolean();
                    events.add("stopped at " + op + (cut ? ", power cut" : ", reopened"));
                    if (cut) {
                        storage.powerCut();
                    }
                    closeQuietly(dao);
                    storage.repair();
                    storage.powerOn();
                    fullDisksUntil = -1;
                    dao = LsmDao.open(options);
                    reopens++;
                    check(dao, model, context);
                }
            }
            storage.repair();
            check(dao, model, "seed " + seed + ", at the end");
            storage.powerCut();
        } finally {
            closeQuietly(dao);
        }
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options)) {
            check(reopened, model, "seed " + seed + ", after the last power cut");
            assertFalse(reopened.diskSpace().stopsWrites());
        }
        System.out.println("LsmDaoRandomFaultTest." + policy + ": " + reopens + " stops; " + events);
    }

    /** Every key reads as the model allows; what a failed write left is settled from then on. */
    private static void check(LsmDao dao, Expected[] model, String context) throws IOException {
        for (int k = 0; k < KEYS; k++) {
            long found = version(dao.get(key(k)));
            if (!model[k].allows(found)) {
                fail(context + ": key " + k + " reads " + found + ", expected " + model[k].acknowledged
                        + " or one of " + model[k].inDoubt);
            }
            model[k].acknowledged = found;
            model[k].inDoubt.clear();
        }
    }
}
