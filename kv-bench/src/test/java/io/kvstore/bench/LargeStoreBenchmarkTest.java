package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LargeStoreBenchmarkTest {

    @Test
    void fillsReadsEveryKeyItLooksForAndLeavesNothingBehind(@TempDir Path dir) throws IOException {
        String text = runToSuccess("--bytes", "2m", "--value-bytes", "1000", "--dir", dir.toString(),
                "--rate", "400", "--threads", "2", "--duration", "1", "--warmup", "0", "--seed", "7");
        Matcher result = Pattern.compile("RESULT table_bytes=(\\d+) .* rps=(\\d+) p50=([\\d.]+) p99=([\\d.]+) .* missing=(\\d+) ")
                .matcher(text);
        assertTrue(result.find(), text);
        long tableBytes = Long.parseLong(result.group(1));
        assertTrue(tableBytes > 2_000_000 * 0.9 && tableBytes < 2_000_000 * 1.5, "2 MiB of random values: " + text);
        assertEquals(400, Long.parseLong(result.group(2)), 80, "the reads keep to the rate: " + text);
        assertTrue(Double.parseDouble(result.group(3)) <= Double.parseDouble(result.group(4)), text);
        assertEquals("0", result.group(5), text);
        assertTrue(text.contains("page cache: kept"), text);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "the store is deleted");
        }
    }

    @Test
    void mappedPageCacheLoadsTheWholeStoreBeforeTheReads(@TempDir Path dir) {
        String text = runToSuccess("--bytes", "3m", "--value-bytes", "1000", "--dir", dir.toString(),
                "--rate", "200", "--threads", "1", "--duration", "1", "--warmup", "0", "--page-cache", "mapped");
        Matcher loaded = Pattern.compile("page cache: mapped \\((\\d+) MiB loaded\\)").matcher(text);
        assertTrue(loaded.find(), text);
        Matcher result = Pattern.compile("RESULT table_bytes=(\\d+) .* missing=0 .* page_cache=mapped").matcher(text);
        assertTrue(result.find(), text);
        long tablesMiB = Math.round(Long.parseLong(result.group(1)) / 1048576.0);
        assertTrue(Long.parseLong(loaded.group(1)) >= tablesMiB, "every table is loaded, the log too: " + text);
    }

    /** Runs the benchmark with {@code args}, checks that it exits with 0, and returns its report. */
    private static String runToSuccess(String... args) {
        LargeStoreBenchmark benchmark = new LargeStoreBenchmark();
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        benchmark.out = new PrintStream(report, true, StandardCharsets.UTF_8);
        int code = new CommandLine(benchmark).execute(args);
        String text = report.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        return text;
    }

    @Test
    void helpListsTheOptions() {
        String usage = new CommandLine(new LargeStoreBenchmark()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertTrue(usage.contains("--bytes=SIZE") && usage.contains("--page-cache=MODE") && usage.contains("mapped"), usage);
    }

    @Test
    void sizesTakeBinarySuffixes() {
        assertEquals(4096, ByteSize.parse("4096"));
        assertEquals(200L << 20, ByteSize.parse("200m"));
        assertEquals(3L << 29, ByteSize.parse("1.5G"));
        assertEquals(10L << 30, ByteSize.parse("10g"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("ten"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("-1m"));
    }

    @Test
    void orderedKeysSortAsTheirIndices() {
        byte[] previous = new byte[BenchKeys.KEY_BYTES];
        BenchKeys.writeOrdered(0, previous);
        for (long index : new long[] {1, 2, 255, 256, 65_536, 1L << 32, Long.MAX_VALUE}) {
            byte[] key = new byte[BenchKeys.KEY_BYTES];
            BenchKeys.writeOrdered(index, key);
            assertTrue(Arrays.compareUnsigned(previous, key) < 0, "key of " + index + " sorts after the one before");
            previous = key;
        }
    }
}
