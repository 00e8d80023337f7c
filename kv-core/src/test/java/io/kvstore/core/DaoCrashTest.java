package io.kvstore.core;

import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kill -9 in the middle of writes, flushes and compactions: a child JVM ({@link CrashWriter}) writes
 * sequential keys with a tiny flush threshold and reports each acknowledged write; the test kills it
 * with SIGKILL after a random number of acknowledgements, reopens the store and checks that every
 * acknowledged write is there with its exact value and that nothing else appears but the one write
 * that may have been in flight. Several rounds continue in the same directory.
 *
 * <p>Seed printed, replay with {@code -Dkv.seed=<seed>}; rounds with {@code -Dkv.crashRounds}.
 */
@Tag("slow")
public abstract class DaoCrashTest {
    private static final long FLUSH_THRESHOLD_BYTES = 4 << 10;

    @TempDir
    protected Path workDirectory;

    /** The engine under test, by its {@link Engine#fromName(String)} name (the child opens it by name). */
    protected abstract String engineName();

    /** Options for the store, as {@link CrashWriter#applyOptions} takes them; none by default. */
    protected List<String> optionArguments() {
        return List.of();
    }

    /** Options for the store in round {@code round} (its child and its check); {@link #optionArguments()} by default. */
    protected List<String> optionArguments(int round) {
        return optionArguments();
    }

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void acknowledgedWritesSurviveKillMinusNine() throws Exception {
        long seed = Seeds.seed(getClass().getSimpleName());
        int rounds = Integer.getInteger("kv.crashRounds", 6);
        Random random = new Random(seed);
        Path store = workDirectory.resolve("store");
        Acknowledged acknowledged = new Acknowledged();
        for (int round = 0; round < rounds; round++) {
            int target = 100 + random.nextInt(1500);
            runChildAndKill(store, round, target, acknowledged);
            try {
                verify(store, round, acknowledged);
            } catch (AssertionError e) {
                throw new AssertionError("Round " + round + " with seed " + seed + ": " + e.getMessage(), e);
            }
        }
        System.out.println(getClass().getSimpleName() + ": " + rounds + " kills, " + (acknowledged.highestPut + 1)
                + " acknowledged puts");
    }

    private void runChildAndKill(Path store, int round, int target, Acknowledged acknowledged)
            throws IOException, InterruptedException {
        Path stderr = workDirectory.resolve("child-" + round + ".err");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CrashWriter.class.getName());
        command.add(engineName());
        command.add(store.toString());
        command.add(Long.toString(acknowledged.highestPut + 1));
        command.add(Long.toString(FLUSH_THRESHOLD_BYTES));
        command.addAll(optionArguments(round));
        Process child = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            int puts = 0;
            String line;
            while (puts < target && (line = out.readLine()) != null) {
                if (acknowledged.record(line)) {
                    puts++;
                }
            }
            if (puts < target) {
                child.waitFor(30, TimeUnit.SECONDS);
                fail("Child exited early (round " + round + ", " + puts + " puts acknowledged): "
                        + Files.readString(stderr));
            }
            // SIGKILL through the handle: Process.destroyForcibly() would also close our end of the pipe.
            assertTrue(child.toHandle().destroyForcibly(), "cannot kill the child");
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "killed child did not exit");
            // Lines already in the pipe were printed after their write returned: acknowledged too.
            while ((line = out.readLine()) != null) {
                acknowledged.record(line);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    private void verify(Path store, int round, Acknowledged acknowledged) throws IOException {
        try (Dao dao = Engine.fromName(engineName()).open(CrashWriter.applyOptions(DaoOptions.builder(store)
                .flushThresholdBytes(FLUSH_THRESHOLD_BYTES).compactionTrigger(2), optionArguments(round)).build())) {
            for (long i = 0; i <= acknowledged.highestPut; i++) {
                Entry got = dao.get(CrashWriter.key(i));
                boolean deleted = CrashWriter.isDeletedAfterPut(i) && acknowledged.deletes.get((int) i);
                if (deleted) {
                    assertTrue(got == null || isExpectedTombstone(i, got), "acknowledged delete of " + i + " lost: " + got);
                } else if (CrashWriter.isDeletedAfterPut(i) && (got == null || got.isTombstone())) {
                    // The delete was in flight when the child died: either outcome is correct.
                    assertTrue(got == null || isExpectedTombstone(i, got), "key " + i + ": " + got);
                } else {
                    assertExpectedValue(i, got);
                }
            }
            long present = 0;
            try (CloseableIterator<Entry> all = dao.range(null, null)) {
                while (all.hasNext()) {
                    Entry e = all.next();
                    long index = CrashWriter.indexOf(e.key());
                    assertTrue(index >= 0 && index <= acknowledged.highestPut + 1,
                            "unexpected key in the store: " + e + " (highest acknowledged " + acknowledged.highestPut + ")");
                    if (e.isTombstone()) {
                        assertTrue(isExpectedTombstone(index, e), "unexpected tombstone " + e);
                    } else {
                        assertExpectedValue(index, e);
                        present++;
                    }
                }
            }
            assertTrue(present >= acknowledged.highestPut + 1 - acknowledged.deletableCount(),
                    "range shows fewer entries than were acknowledged");
        }
    }

    private static boolean isExpectedTombstone(long index, Entry e) {
        return e.isTombstone() && CrashWriter.isDeletedAfterPut(index)
                && e.timestamp() == CrashWriter.deleteTimestamp(index);
    }

    private static void assertExpectedValue(long index, Entry got) {
        assertNotNull(got, "acknowledged put of " + index + " is missing");
        assertTrue(!got.isTombstone(), "put of " + index + " reads as a tombstone");
        assertEquals(CrashWriter.putTimestamp(index), got.timestamp(), "timestamp of " + index);
        assertArrayEquals(CrashWriter.value(index), got.value(), "value of " + index);
    }

    /** What the children acknowledged, across rounds. */
    private static final class Acknowledged {
        long highestPut = -1;
        final BitSet deletes = new BitSet();

        /** Records one output line; true if it acknowledged a put. */
        boolean record(String line) {
            if (line.startsWith("P ")) {
                long index = Long.parseLong(line.substring(2));
                highestPut = Math.max(highestPut, index);
                return true;
            }
            if (line.startsWith("D ")) {
                deletes.set(Integer.parseInt(line.substring(2)));
                return false;
            }
            throw new IllegalStateException("Unexpected child output: " + line);
        }

        long deletableCount() {
            return (highestPut + 6) / 10;
        }
    }
}
