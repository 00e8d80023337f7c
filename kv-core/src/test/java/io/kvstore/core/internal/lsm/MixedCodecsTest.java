package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tables of different codecs live side by side in one store; a change of codec applies to new tables. */
class MixedCodecsTest {
    @TempDir
    Path dir;

    /**
     * Size-tiered, so that the three tables stay as written until the test compacts them (leveled
     * compaction would move the tables it finds at level 0 on each open into levels in the background).
     */
    private DaoOptions options(Compression compression) {
        return DaoOptions.builder(dir).compression(compression).compactionStyle(CompactionStyle.SIZE_TIERED).build();
    }

    private static byte[] key(int i) {
        return String.format("key%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(Compression codec, int i) {
        return (codec + " value " + i).repeat(3).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void tablesOfEveryCodecAreReadTogetherAndCompactIntoTheCurrentOne() throws IOException {
        Compression[] codecs = {Compression.LZ4, Compression.ZSTD, Compression.NONE};
        for (int round = 0; round < codecs.length; round++) {
            try (LsmDao dao = LsmDao.open(options(codecs[round]))) {
                // Each round overwrites the upper half of the previous round's keys.
                for (int i = round * 500; i < round * 500 + 1000; i++) {
                    dao.upsert(Entry.value(key(i), value(codecs[round], i), 10 + round));
                }
                dao.flush();
            }
        }
        try (LsmDao dao = LsmDao.open(options(Compression.ZSTD))) {
            Set<String> codecsSeen = new HashSet<>();
            for (SsTable table : dao.liveTables()) {
                codecsSeen.add(table.codecName());
            }
            assertEquals(Set.of("lz4", "zstd", "none"), codecsSeen);
            checkContents(dao, codecs);
            dao.compact();
            assertEquals(1, dao.liveTables().length);
            assertEquals("zstd", dao.liveTables()[0].codecName());
            checkContents(dao, codecs);
        }
    }

    private static void checkContents(LsmDao dao, Compression[] codecs) throws IOException {
        for (int i = 0; i < 2000; i++) {
            int round = Math.min(i / 500, codecs.length - 1);
            assertEquals(Entry.value(key(i), value(codecs[round], i), 10 + round), dao.get(key(i)), "key " + i);
        }
    }
}
