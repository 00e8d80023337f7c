package io.kvstore.core.internal.lsm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store with a background budget compacts and scrubs through its lanes, and reports its compaction backlog. */
class BudgetedCompactionTest {
    @TempDir
    Path dir;

    @Test
    void compactionsAndScrubsDrawFromTheBudgetAndTheDataSurvives() throws Exception {
        DaoOptions options = BudgetedStores.atTheFloor(DaoOptions.builder(dir).build());
        BackgroundBudget budget = options.backgroundBudget();
        Random random = new Random(3);
        byte[][] values = new byte[4000][];
        try (LsmDao dao = LsmDao.open(options)) {
            for (int round = 0; round < 8; round++) {
                for (int i = 0; i < values.length; i++) {
                    if (random.nextInt(8) == 0 || values[i] == null) {
                        values[i] = new byte[40 + random.nextInt(60)];
                        random.nextBytes(values[i]);
                        dao.upsert(Entry.value(key(i), values[i], round * values.length + i + 1));
                    }
                }
                dao.flush();
            }
            dao.compact();
            BudgetLane compaction = budget.lane(BackgroundWork.COMPACTION, 64 << 20);
            assertTrue(dao.compactedBytes() > 0);
            assertTrue(compaction.consumedBytes() > 0 && compaction.consumedBytes() <= dao.compactedBytes(),
                    compaction.consumedBytes() + " bytes drawn of " + dao.compactedBytes() + " compacted");
            assertEquals(0, compaction.backlogBytes(), "nothing due after a full compaction");
            for (int i = 0; i < values.length; i++) {
                assertArrayEquals(values[i], dao.get(key(i)).value(), "key " + i);
            }
            dao.scrub(0);
            assertTrue(budget.lane(BackgroundWork.SCRUB, 0).consumedBytes() > 0, "a scrub draws from the budget");
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }
}
