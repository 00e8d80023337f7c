package io.kvstore.core.internal.lsm;

import io.kvstore.core.Storage;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The manifest keeps each table's level and inherited flag, and reads the versions before it. */
class ManifestTest {
    @TempDir
    Path dir;

    @Test
    void aManifestReadsBackAsWritten() throws IOException {
        Manifest written = new Manifest(42, 17, new long[] {9, 8, 7, 3, 4}, new int[] {0, 0, 0, 2, 6},
                new boolean[] {false, true, true, false, false});
        written.write(Storage.local(), dir);
        Manifest read = Manifest.read(Storage.local(), dir);
        assertEquals(42, read.nextFileNumber);
        assertEquals(17, read.logNumber);
        assertArrayEquals(written.tables, read.tables);
        assertArrayEquals(written.levels, read.levels);
        assertArrayEquals(written.inherited, read.inherited);
    }

    @Test
    void aVersionTwoManifestReadsEveryLevelZeroTableAsInherited() throws IOException {
        writeRaw(Manifest.V2, new long[] {5, 6, 1}, new int[] {0, 0, 3}, null);
        Manifest read = Manifest.read(Storage.local(), dir);
        assertArrayEquals(new long[] {5, 6, 1}, read.tables);
        assertArrayEquals(new int[] {0, 0, 3}, read.levels);
        assertArrayEquals(new boolean[] {true, true, false}, read.inherited);
    }

    @Test
    void aVersionOneManifestReadsEveryTableAsInheritedAtLevelZero() throws IOException {
        writeRaw(Manifest.V1, new long[] {5, 6}, null, null);
        Manifest read = Manifest.read(Storage.local(), dir);
        assertArrayEquals(new int[] {0, 0}, read.levels);
        assertArrayEquals(new boolean[] {true, true}, read.inherited);
    }

    @Test
    void unknownFlagsAndAnInheritedTableBelowLevelZeroAreCorruption() throws IOException {
        writeRaw(Manifest.VERSION, new long[] {5, 6}, new int[] {0, 0}, new int[] {0, 2});
        CorruptionException unknown = assertThrows(CorruptionException.class, () -> Manifest.read(Storage.local(), dir));
        assertEquals(28 + 16 + 12, unknown.offset(), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("flags 2"), unknown.getMessage());

        writeRaw(Manifest.VERSION, new long[] {5}, new int[] {1}, new int[] {Manifest.INHERITED});
        CorruptionException deep = assertThrows(CorruptionException.class, () -> Manifest.read(Storage.local(), dir));
        assertEquals(28 + 12, deep.offset(), deep.getMessage());
        assertTrue(deep.getMessage().contains("level 1"), deep.getMessage());
    }

    @Test
    void aLaterVersionIsRefusedRatherThanMisread() throws IOException {
        writeRaw(Manifest.VERSION, new long[] {5}, new int[] {0}, new int[] {0});
        byte[] bytes = Files.readAllBytes(dir.resolve(FileNames.MANIFEST));
        Coding.putInt(bytes, 4, Manifest.VERSION + 1);
        Coding.putInt(bytes, bytes.length - 4, Crc32c.of(bytes, 0, bytes.length - 4));
        Files.write(dir.resolve(FileNames.MANIFEST), bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> Manifest.read(Storage.local(), dir));
        assertTrue(e.getMessage().contains("unsupported manifest version " + (Manifest.VERSION + 1)), e.getMessage());
    }

    /** Writes a manifest of {@code version} byte by byte: levels from version 2 on, flags from version 3. */
    private void writeRaw(int version, long[] tables, int[] levels, int[] flags) throws IOException {
        int perTable = version == Manifest.V1 ? 8 : version == Manifest.V2 ? 12 : 16;
        byte[] bytes = new byte[28 + perTable * tables.length + 4];
        Coding.putInt(bytes, 0, Manifest.MAGIC);
        Coding.putInt(bytes, 4, version);
        Coding.putLong(bytes, 8, 100);
        Coding.putLong(bytes, 16, 50);
        Coding.putInt(bytes, 24, tables.length);
        for (int i = 0; i < tables.length; i++) {
            int at = 28 + perTable * i;
            Coding.putLong(bytes, at, tables[i]);
            if (version != Manifest.V1) {
                Coding.putInt(bytes, at + 8, levels[i]);
            }
            if (version == Manifest.VERSION) {
                Coding.putInt(bytes, at + 12, flags[i]);
            }
        }
        Coding.putInt(bytes, bytes.length - 4, Crc32c.of(bytes, 0, bytes.length - 4));
        Files.write(dir.resolve(FileNames.MANIFEST), bytes);
    }
}
