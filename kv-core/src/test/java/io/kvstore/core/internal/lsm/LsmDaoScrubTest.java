package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.ScrubReport;
import io.kvstore.core.StoreHealth;
import io.kvstore.core.UnavailableIntervalException;
import io.kvstore.core.internal.lsm.LsmDaoQuarantineTest.Block;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static io.kvstore.core.internal.lsm.LsmDaoQuarantineTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scrub reads every live table through a channel of its own and checks each checksum: it finds
 * damage no read has met (here a bit flipped after the store opened, which the store's own mappings do
 * not show) and quarantines the table as a failed read would. The stores are those of
 * {@link LsmDaoQuarantineTest}.
 */
class LsmDaoScrubTest {
    @TempDir
    Path dir;
    final LsmDaoQuarantineTest stores = new LsmDaoQuarantineTest();
    FaultyStorage storage;

    @BeforeEach
    void share() {
        stores.dir = dir;
        storage = stores.storage;
    }

    @ParameterizedTest
    @EnumSource(Block.class)
    void aScrubFindsABitFlippedInATableNoReadTouched(Block block) throws IOException {
        Random random = new Random(Seeds.seed("LsmDaoScrubTest." + block));
        DaoOptions options = stores.options().build();
        String mid = stores.writeThreeTables(options);
        try (LsmDao dao = LsmDao.open(options)) {
            long tableBytes = dao.properties().tableBytes();
            stores.flip(mid, block, random);
            LsmDaoQuarantineTest.assertServed(dao, "m", 2); // the open table's mapping does not show the flip
            ScrubReport report = dao.scrub(0);
            assertTrue(report.finished());
            assertEquals(3, report.tables());
            assertEquals(3, report.tablesChecked());
            assertEquals(tableBytes, report.bytes());
            assertEquals(tableBytes, report.bytesChecked());
            assertEquals(1, report.quarantined().size(), report.toString());
            QuarantinedInterval found = report.quarantined().get(0);
            assertTrue(found.reason().contains(mid), found.reason());
            stores.assertOnlyMidRefused(dao, mid);
            StoreHealth health = dao.health();
            assertEquals(report, health.scrub());
            assertEquals(tableBytes, health.scrubbedBytes());

            ScrubReport again = dao.scrub(0);
            assertEquals(2, again.tablesChecked());
            assertTrue(again.quarantined().isEmpty(), "nothing more to find: " + again);
            assertEquals(tableBytes * 2 - found.file().toFile().length(), dao.health().scrubbedBytes());
        }
    }

    @Test
    void aReadTheDeviceFailsDuringAScrubQuarantinesTheTable() throws IOException {
        DaoOptions options = stores.options().build();
        String mid = stores.writeThreeTables(options);
        try (LsmDao dao = LsmDao.open(options)) {
            FaultyStorage.Fault eio = storage.failNth(Op.READ, Pattern.quote(mid), 4); // the filter, after the footer, meta and index
            ScrubReport report = dao.scrub(0);
            assertEquals(1, eio.fired());
            assertEquals(1, report.quarantined().size(), report.toString());
            assertTrue(report.quarantined().get(0).reason().contains(FaultyStorage.IO_ERROR),
                    report.quarantined().get(0).reason());
            stores.assertOnlyMidRefused(dao, mid);
        }
    }

    @Test
    void aReadTheDeviceFailsAtOpenQuarantinesTheTableAndTheStoreStarts() throws IOException {
        DaoOptions options = stores.options().build();
        String mid = stores.writeThreeTables(options);
        storage.failNth(Op.READ, Pattern.quote(mid), 1); // the footer
        try (LsmDao dao = LsmDao.open(options)) {
            stores.assertOnlyMidRefused(dao, mid);
            assertTrue(dao.health().quarantined().get(0).reason().contains(FaultyStorage.IO_ERROR));
        }
    }

    @Test
    void theBackgroundScrubFindsDamageByItself() throws IOException {
        DaoOptions options = stores.options().scrubPeriod(Duration.ofMillis(200)).build();
        String mid = stores.writeThreeTables(options);
        try (LsmDao dao = LsmDao.open(options)) {
            stores.flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoScrubTest.background")));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (dao.health().quarantined().isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "no background scrub found the damage: " + dao.health());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-000")));
            ScrubReport latest = dao.health().scrub();
            assertNotNull(latest);
            assertTrue(dao.health().scrubbedBytes() > 0);
        }
    }

    @Test
    void aScrubKeepsToItsRate() throws IOException {
        DaoOptions options = stores.options().build();
        stores.writeThreeTables(options);
        try (LsmDao dao = LsmDao.open(options)) {
            long rate = 16 << 10;
            long start = System.nanoTime();
            ScrubReport report = dao.scrub(rate);
            double seconds = (System.nanoTime() - start) / 1e9;
            // The limiter lends a tenth of a second's bytes up front; the rest is paid at the rate.
            double least = (report.bytesChecked() - rate / 10.0) / rate;
            assertTrue(report.finished());
            assertTrue(seconds >= 0.9 * least, seconds + " s for " + report.bytesChecked() + " bytes at " + rate
                    + " bytes/s");
        }
    }

    @Test
    void aScrubOfASoundStoreFindsNothingAndQuarantinesNothing() throws IOException {
        DaoOptions options = stores.options().build();
        stores.writeThreeTables(options);
        try (LsmDao dao = LsmDao.open(options)) {
            ScrubReport report = dao.scrub(0);
            assertTrue(report.finished());
            assertEquals(3, report.tablesChecked());
            assertTrue(report.quarantined().isEmpty());
            assertTrue(dao.health().quarantined().isEmpty());
            assertTrue(Files.notExists(dir.resolve(Quarantine.DIRECTORY)), "no quarantine directory for nothing");
            LsmDaoQuarantineTest.assertServed(dao, "m", 2);
        }
    }
}
