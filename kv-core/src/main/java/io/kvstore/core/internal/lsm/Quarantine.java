package io.kvstore.core.internal.lsm;

import io.kvstore.core.AtomicFile;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.Storage;
import io.kvstore.core.UnavailableIntervalException;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The tables a store moved aside as damaged, and the key intervals it refuses for them. A table whose
 * block fails its checksum, or cannot be read, is taken out of the live set through the manifest and
 * its file moved into {@value #DIRECTORY}/ under the same name; since the tables beneath it may hold
 * older versions and deleted keys of its keys, every read of its interval is refused
 * ({@link UnavailableIntervalException}) until the interval is healed, writes included (a key written
 * since is refused too: one rule for the whole interval). The intervals are recorded in
 * {@value #DIRECTORY}/{@value #RECORD} before the manifest drops the table, so that no crash serves
 * the interval again; see docs/FORMAT.md.
 *
 * <p>Reads check the intervals without a lock (an array replaced on each change); changes are
 * serialised on this object and, for the live set, under the manifest lock.
 */
final class Quarantine {
    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    /** The subdirectory of the store holding quarantined tables and the record. */
    static final String DIRECTORY = "quarantine";
    /** The record of the refused intervals, in {@link #DIRECTORY}. */
    static final String RECORD = "INTERVALS";
    /** "KVQR" read as a little-endian int. */
    static final int MAGIC = 0x5251564B;
    static final int VERSION = 1;
    /** An interval's flag: it has no lower end. */
    private static final int OPEN_FROM = 1;
    /** An interval's flag: it has no upper end. */
    private static final int OPEN_TO = 2;

    /** One quarantined table: its number and the interval refused for it. */
    record Held(long tableNumber, QuarantinedInterval interval) {
    }

    private final Storage storage;
    private final Path dir;
    private final Path directory;
    /** Replaced whole on each change, so that readers need no lock. */
    private volatile Held[] held;

    private Quarantine(Storage storage, Path dir, Held[] held) {
        this.storage = storage;
        this.dir = dir;
        this.directory = dir.resolve(DIRECTORY);
        this.held = held;
    }

    /** The quarantine of the store in {@code dir}, as its record says (none if there is no record). */
    static Quarantine load(Storage storage, Path dir) throws IOException {
        Path directory = dir.resolve(DIRECTORY);
        Path file = directory.resolve(RECORD);
        byte[] bytes = storage.exists(directory) ? new AtomicFile(storage, file).read() : null;
        return new Quarantine(storage, dir, bytes == null ? new Held[0] : decode(file, directory, bytes));
    }

    /** Whether table {@code number} is quarantined. */
    boolean holds(long number) {
        for (Held h : held) {
            if (h.tableNumber == number) {
                return true;
            }
        }
        return false;
    }

    /** The interval refused for table {@code number}, or null if it is not quarantined. */
    QuarantinedInterval intervalOf(long number) {
        for (Held h : held) {
            if (h.tableNumber == number) {
                return h.interval;
            }
        }
        return null;
    }

    /** The refused intervals, oldest first. */
    List<QuarantinedInterval> intervals() {
        Held[] now = held;
        List<QuarantinedInterval> out = new ArrayList<>(now.length);
        for (Held h : now) {
            out.add(h.interval);
        }
        return out;
    }

    /** Throws if {@code key} lies in a refused interval. */
    void checkKey(byte[] key) throws UnavailableIntervalException {
        for (Held h : held) {
            if (h.interval.contains(key)) {
                throw new UnavailableIntervalException(h.interval);
            }
        }
    }

    /** Throws if {@code [from, to)} ({@code null} bounds open) meets a refused interval. */
    void checkRange(byte[] from, byte[] to) throws UnavailableIntervalException {
        for (Held h : held) {
            if (h.interval.overlaps(from, to)) {
                throw new UnavailableIntervalException(h.interval);
            }
        }
    }

    /**
     * Quarantines {@code table}, damaged as {@code cause} says, if it is still live in {@code versions}:
     * records its interval, installs the live set without it, releases the live set's reference and moves
     * its file aside. Returns the interval refused for it (also when another read quarantined it
     * first), or null if it left the live set otherwise (compacted away). Readers holding it in a
     * snapshot keep reading their mapping.
     */
    QuarantinedInterval isolate(VersionSet versions, SsTable table, IOException cause, long nowMillis)
            throws IOException {
        QuarantinedInterval interval;
        synchronized (versions.manifestLock) {
            if (!Arrays.asList(versions.current().tables).contains(table)) {
                return intervalOf(table.fileNumber());
            }
            interval = record(table.fileNumber(), table.firstKey(), successor(table.lastKey()), reason(cause),
                    nowMillis);
            versions.install(v -> v.withCompacted(new SsTable[] {table}, null));
        }
        VersionSet.release(new SsTable[] {table});
        LOG.error("Quarantined table {} of {} after {}; key interval {} is refused until healed", table.fileNumber(),
                dir, interval.reason(), interval.describe());
        try {
            moveAside(table.fileNumber());
        } catch (IOException e) {
            // The table is out of the live set and its interval refused: the next open moves the file.
            LOG.warn("Could not move quarantined table {} of {} aside; the next open will", table.fileNumber(), dir, e);
        }
        return interval;
    }

    /**
     * Records, durably, that table {@code number} is quarantined and {@code [from, to)} refused for it;
     * returns the interval.
     */
    synchronized QuarantinedInterval record(long number, byte[] from, byte[] to, String reason, long nowMillis)
            throws IOException {
        Path file = directory.resolve(FileNames.table(dir, number).getFileName());
        QuarantinedInterval interval = new QuarantinedInterval(from, to, file, reason, nowMillis);
        Held[] next = Arrays.copyOf(held, held.length + 1);
        next[held.length] = new Held(number, interval);
        write(next);
        held = next;
        return interval;
    }

    /** Moves table {@code number}'s file into {@link #DIRECTORY}, if it is still in the store's directory. */
    void moveAside(long number) throws IOException {
        Path source = FileNames.table(dir, number);
        if (!storage.exists(source)) {
            return;
        }
        storage.createDirectories(directory);
        storage.rename(source, directory.resolve(source.getFileName()));
        storage.syncDirectory(directory);
        storage.syncDirectory(dir);
    }

    /**
     * Stops refusing every interval that lies wholly within {@code [from, to)} ({@code null} bounds open);
     * returns how many. The quarantined files stay where they are, for the operator to look at or delete.
     */
    synchronized int heal(byte[] from, byte[] to) throws IOException {
        List<Held> kept = new ArrayList<>();
        for (Held h : held) {
            if (!h.interval.within(from, to)) {
                kept.add(h);
            }
        }
        int healed = held.length - kept.size();
        if (healed > 0) {
            Held[] next = kept.toArray(new Held[0]);
            write(next);
            held = next;
            LOG.info("Healed {} quarantined intervals of {} within {}", healed, dir,
                    new QuarantinedInterval(from, to, directory, "", 0).describe());
        }
        return healed;
    }

    /** The reason recorded for a table damaged as {@code cause} says. */
    static String reason(IOException cause) {
        String message = cause.getMessage();
        return message == null ? cause.getClass().getSimpleName() : message;
    }

    /** The least key above {@code key}: {@code key} followed by a zero byte. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private void write(Held[] entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] header = new byte[12];
        Coding.putInt(header, 0, MAGIC);
        Coding.putInt(header, 4, VERSION);
        Coding.putInt(header, 8, entries.length);
        out.write(header);
        for (Held h : entries) {
            QuarantinedInterval interval = h.interval;
            byte[] from = interval.from();
            byte[] to = interval.to();
            byte[] reason = interval.reason().getBytes(StandardCharsets.UTF_8);
            byte[] fixed = new byte[20];
            Coding.putLong(fixed, 0, h.tableNumber);
            Coding.putLong(fixed, 8, interval.sinceMillis());
            Coding.putInt(fixed, 16, (from == null ? OPEN_FROM : 0) | (to == null ? OPEN_TO : 0));
            out.write(fixed);
            writeBytes(out, from == null ? new byte[0] : from);
            writeBytes(out, to == null ? new byte[0] : to);
            writeBytes(out, reason);
        }
        byte[] body = out.toByteArray();
        byte[] bytes = Arrays.copyOf(body, body.length + 4);
        Coding.putInt(bytes, body.length, Crc32c.of(bytes, 0, body.length));
        if (!storage.exists(directory)) {
            storage.createDirectories(directory);
            storage.syncDirectory(dir);
        }
        new AtomicFile(storage, directory.resolve(RECORD)).replace(bytes);
    }

    private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
        byte[] length = new byte[4];
        Coding.putInt(length, 0, bytes.length);
        out.writeBytes(length);
        out.writeBytes(bytes);
    }

    private static Held[] decode(Path file, Path directory, byte[] bytes) throws CorruptionException {
        if (bytes.length < 16 || Coding.getInt(bytes, 0) != MAGIC) {
            throw new CorruptionException(file, 0, "not a quarantine record (bad magic or too short)");
        }
        int crcAt = bytes.length - 4;
        if (Coding.getInt(bytes, crcAt) != Crc32c.of(bytes, 0, crcAt)) {
            throw new CorruptionException(file, crcAt, "quarantine record checksum mismatch");
        }
        if (Coding.getInt(bytes, 4) != VERSION) {
            throw new CorruptionException(file, 4, "unsupported quarantine record version " + Coding.getInt(bytes, 4));
        }
        int count = Coding.getInt(bytes, 8);
        if (count < 0 || count > crcAt / 32) {
            throw new CorruptionException(file, 8, "interval count " + count);
        }
        Held[] held = new Held[count];
        int at = 12;
        for (int i = 0; i < count; i++) {
            if (at + 20 > crcAt) {
                throw new CorruptionException(file, at, "interval " + i + " runs past the end");
            }
            long number = Coding.getLong(bytes, at);
            long since = Coding.getLong(bytes, at + 8);
            int flags = Coding.getInt(bytes, at + 16);
            at += 20;
            byte[][] fields = new byte[3][];
            for (int f = 0; f < 3; f++) {
                int length = at + 4 <= crcAt ? Coding.getInt(bytes, at) : -1;
                if (length < 0 || at + 4L + length > crcAt) {
                    throw new CorruptionException(file, at, "field length " + length + " of interval " + i);
                }
                fields[f] = Arrays.copyOfRange(bytes, at + 4, at + 4 + length);
                at += 4 + length;
            }
            Path table = directory.resolve(FileNames.table(directory, number).getFileName());
            held[i] = new Held(number, new QuarantinedInterval((flags & OPEN_FROM) != 0 ? null : fields[0],
                    (flags & OPEN_TO) != 0 ? null : fields[1], table, new String(fields[2], StandardCharsets.UTF_8),
                    since));
        }
        if (at != crcAt) {
            throw new CorruptionException(file, at, "bytes after the last interval");
        }
        return held;
    }
}
