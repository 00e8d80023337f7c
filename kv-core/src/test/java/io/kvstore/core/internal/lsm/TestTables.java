package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Tables a test writes into its directory, numbered in turn and released when the test ends: a field
 * {@code @RegisterExtension final TestTables tables = new TestTables(() -> dir);} next to the test's
 * {@code @TempDir Path dir}.
 */
final class TestTables implements AfterEachCallback {
    private final Supplier<Path> dir;
    private final List<SsTable> opened = new ArrayList<>();
    private long nextNumber = 1;

    TestTables(Supplier<Path> dir) {
        this.dir = dir;
    }

    /** A table of {@code count} {@code entries} (in key order, one version per key) as a flush writes it. */
    SsTable write(Iterator<Entry> entries, long count, DaoOptions options) throws IOException {
        return keep(TableBuilder.build(dir.get(), nextNumber(), entries, count, options, BlockCache.disabled(), Long.MIN_VALUE,
                timestamp -> false, () -> false).table());
    }

    /** The number of the next table, for one the test builds itself (then {@link #keep}s). */
    long nextNumber() {
        return nextNumber++;
    }

    /** {@code table} (may be null), released with the others when the test ends. */
    SsTable keep(SsTable table) {
        if (table != null) {
            opened.add(table);
        }
        return table;
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        for (SsTable table : opened) {
            table.release();
        }
        opened.clear();
    }
}
