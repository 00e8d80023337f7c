package io.kvstore.core.lsm;

import io.kvstore.core.CorruptionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The set of live tables, replaced atomically: written to {@code MANIFEST.tmp}, forced to the device,
 * renamed over {@code MANIFEST}, and the directory forced, so a crash leaves either the old or the new
 * file, never a mix. Layout (big-endian): {@code [int64 magic][int32 version][int64 next file id]
 * [int64 oldest live WAL id][int32 table count][int64 table ids, newest first...][int32 CRC32C]}.
 */
final class Manifest {
    static final String FILE = "MANIFEST";
    private static final long MAGIC = 0x4B564D414E494631L; // "KVMANIF1"
    private static final int VERSION = 1;

    final long nextFileId;
    final long oldestLiveWal;
    final List<Long> tableIds;

    Manifest(long nextFileId, long oldestLiveWal, List<Long> tableIds) {
        this.nextFileId = nextFileId;
        this.oldestLiveWal = oldestLiveWal;
        this.tableIds = List.copyOf(tableIds);
    }

    static Manifest empty() {
        return new Manifest(1, 0, List.of());
    }

    /** Reads the manifest of {@code dir}, or an empty one for a new store. */
    static Manifest read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return empty();
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        if (b.remaining() < 36 || b.getLong(0) != MAGIC) {
            throw new CorruptionException(file, 0, "not a kvstore manifest");
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.limit() - 4);
        if ((int) crc.getValue() != b.getInt(b.limit() - 4)) {
            throw new CorruptionException(file, b.limit() - 4, "manifest checksum mismatch");
        }
        b.position(8);
        int version = b.getInt();
        if (version != VERSION) {
            throw new CorruptionException(file, 8, "unsupported manifest version " + version);
        }
        long next = b.getLong();
        long oldestWal = b.getLong();
        int count = b.getInt();
        if (count < 0 || count != (b.remaining() - 4) / 8) {
            throw new CorruptionException(file, 28, "bad table count " + count);
        }
        List<Long> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(b.getLong());
        }
        return new Manifest(next, oldestWal, ids);
    }

    /** Replaces the manifest of {@code dir} with this one, atomically and durably. */
    void write(Path dir) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(36 + 8 * tableIds.size());
        b.putLong(MAGIC).putInt(VERSION).putLong(nextFileId).putLong(oldestLiveWal).putInt(tableIds.size());
        for (long id : tableIds) {
            b.putLong(id);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        Path tmp = dir.resolve(FILE + ".tmp");
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            b.flip();
            while (b.hasRemaining()) {
                channel.write(b);
            }
            channel.force(true);
        }
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(dir);
    }

    /** Forces a directory's entries (a rename, a new file) to the device. */
    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
