package io.kvstore.core.testing;

import io.kvstore.core.Storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

/**
 * A {@link Storage} over the real file system that breaks on command, for fault tests, as leveldb's
 * {@code FaultInjectionTestEnv}: it fails the Nth write, fsync or rename of the files whose names match
 * a pattern, reports a full disk, loses at a simulated power cut every byte and every name that was not
 * made durable, and flips bits in what is read. Files live on the real file system underneath (a test's
 * temporary directory); what is durable is tracked beside them.
 *
 * <p>Power cuts. A file's contents are durable as of its last {@link FileChannel#force} (which also
 * covers what was stored into its writable mappings: on Linux an fsync writes back the pages dirtied
 * through a mapping); a name (a creation, rename or deletion) once its directory was
 * {@linkplain #syncDirectory synced}. {@link #powerCut} puts every file this storage saw back to that
 * state: a file created since its directory's last sync is gone, a file deleted or renamed away since
 * comes back with its durable contents, and every other file is cut back to what its last force saw (a
 * file never forced is empty). Files that existed before this storage first saw them are taken as
 * durable as they were. A restored file is a new file (a new inode), so mappings of the old one held by
 * a store that is still shutting down neither fault nor change it.
 *
 * <p>Thread-safe. Names are matched whole against a regular expression ({@code ".*\\.wal"}); a
 * directory's sync matches the directory's name, a rename either name.
 */
public final class FaultyStorage implements Storage {
    /** The operations a fault can be attached to. */
    public enum Op {
        /** A write through a channel (positional or not, gathering or not). */
        WRITE,
        /** A {@link FileChannel#force} of a file, or a {@link Storage#syncDirectory}. */
        FSYNC,
        /** A {@link Storage#rename}. */
        RENAME,
        /**
         * A read through a channel (positional or not), which fails as a device's I/O error does
         * ({@value #IO_ERROR}); reads through a mapping are not counted.
         */
        READ
    }

    /** The message of a failed read, as Linux words EIO. */
    public static final String IO_ERROR = "Input/output error";
    /** The message of the failure a full disk gives, as Linux words ENOSPC. */
    public static final String NO_SPACE = "No space left on device";
    /** What {@link #usableSpace} reports, or -1 for the real disk's free space. */
    private volatile long reportedFree = -1;

    private final Storage disk = Storage.local();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private final List<BitFlip> flips = new CopyOnWriteArrayList<>();
    private final Set<Channel> open = new HashSet<>();
    /** The files as their names are now, each with what of it is durable. GUARDED_BY this. */
    private final Map<Path, Node> live = new HashMap<>();
    /** The files as their directories were last synced. GUARDED_BY this. */
    private final Map<Path, Node> durable = new HashMap<>();
    /** Between {@link #powerCut} and {@link #powerOn}: every operation fails. */
    private volatile boolean off;

    /** One file (an inode): what of its contents is durable. */
    private static final class Node {
        byte[] synced;

        Node(byte[] synced) {
            this.synced = synced;
        }
    }

    /** A fault that fails matching operations; {@link #fired()} tells whether it has. */
    public static final class Fault {
        private final Op op;
        private final Pattern names;
        private final String message;
        private final boolean lasting;
        private int countdown;
        private int fired;
        private Path firedOn;

        private Fault(Op op, String names, int nth, String message, boolean lasting) {
            if (nth < 1) {
                throw new IllegalArgumentException("operations are counted from 1, got " + nth);
            }
            this.op = op;
            this.names = Pattern.compile(names);
            this.countdown = nth;
            this.message = message;
            this.lasting = lasting;
        }

        /** How many operations this fault has failed. */
        public synchronized int fired() {
            return fired;
        }

        /** The file of the first operation this fault failed (a directory for its sync), or null. */
        public synchronized Path firedOn() {
            return firedOn;
        }

        /** Counts an operation on the files {@code touched}, if one matches; whether it must fail. */
        private synchronized boolean hits(Op done, Path... touched) {
            if (done != op || !matches(touched)) {
                return false;
            }
            if (countdown > 1) {
                countdown--;
                return false;
            }
            if (countdown == 1 || lasting) {
                countdown = 0;
                if (fired++ == 0) {
                    firedOn = touched[touched.length - 1];
                }
                return true;
            }
            return false;
        }

        private boolean matches(Path... touched) {
            for (Path file : touched) {
                if (names.matcher(file.getFileName().toString()).matches()) {
                    return true;
                }
            }
            return false;
        }
    }

    /** One bit that reads inverted at a given offset of the matching files. */
    private record BitFlip(Pattern names, long offset, int mask) {
    }

    /**
     * Fails the {@code nth} {@code op} (counted from 1, from now) on a file whose name matches
     * {@code names}, once, with an {@link IOException}; the operation does nothing.
     */
    public Fault failNth(Op op, String names, int nth) {
        return add(new Fault(op, names, nth, op == Op.READ ? IO_ERROR : "injected failure of " + op, false));
    }

    /**
     * {@link #failNth(Op, String, int)}, failing with {@code message} (as {@value #NO_SPACE}: an fsync
     * that finds the disk full).
     */
    public Fault failNth(Op op, String names, int nth, String message) {
        return add(new Fault(op, names, nth, message, false));
    }

    /**
     * Fails every {@code op} on a file whose name matches {@code names} from the {@code nth} on (counted
     * from 1, from now), until {@link #repair}: a disk that has gone bad.
     */
    public Fault failFrom(Op op, String names, int nth) {
        return add(new Fault(op, names, nth, op == Op.READ ? IO_ERROR : "injected failure of " + op, true));
    }

    /**
     * A full disk: from the {@code nth} write (counted from 1, from now) to a file whose name matches
     * {@code names}, every such write fails with {@value #NO_SPACE}, and {@link #usableSpace} reports 0.
     */
    public Fault noSpace(String names, int nth) {
        return add(new Fault(Op.WRITE, names, nth, NO_SPACE, true));
    }

    /**
     * Makes {@link #usableSpace} report {@code bytes} (as a disk filling up would) while writes still
     * succeed; a negative value reports the real disk's again.
     */
    public void reportFreeBytes(long bytes) {
        reportedFree = bytes;
    }

    /** Removes every fault and bit flip: the disk works again. */
    public void repair() {
        faults.clear();
        flips.clear();
        reportedFree = -1;
    }

    /**
     * Makes bit {@code bit} (0-7) of the byte at {@code offset} read inverted in every file whose name
     * matches {@code names}, whether it is read through a channel or a read-only mapping made after this
     * call. The file itself is not changed.
     */
    public void flipBit(String names, long offset, int bit) {
        if (bit < 0 || bit > 7 || offset < 0) {
            throw new IllegalArgumentException("bit " + bit + " at " + offset);
        }
        flips.add(new BitFlip(Pattern.compile(names), offset, 1 << bit));
    }

    /**
     * Cuts the power: every file goes back to what was durable (see the class comment), every channel
     * opened before is closed, and every operation fails until {@link #powerOn}. Close the store that
     * was running (it fails quietly or loudly, as it will) before powering on and reopening it.
     */
    public synchronized void powerCut() throws IOException {
        off = true;
        for (Channel channel : new ArrayList<>(open)) {
            channel.real.close();
            channel.reader.close();
        }
        open.clear();
        Set<Path> seen = new HashSet<>(live.keySet());
        seen.addAll(durable.keySet());
        for (Path file : seen) {
            Node node = durable.get(file);
            if (node == null) {
                Files.deleteIfExists(file);
            } else {
                Path fresh = file.resolveSibling(file.getFileName() + ".power-cut");
                Files.write(fresh, node.synced);
                Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        live.clear();
        live.putAll(durable);
    }

    /** Turns the power back on after {@link #powerCut}: operations work again. */
    public void powerOn() {
        off = false;
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        Path key = key(file);
        synchronized (this) {
            checkPower();
            boolean existed = adopt(key);
            FileChannel real = disk.open(file, options);
            FileChannel reader;
            try {
                // What a force makes durable is read through a channel of its own: the real one may be write-only.
                reader = disk.open(file, StandardOpenOption.READ);
            } catch (IOException | RuntimeException e) {
                real.close();
                throw e;
            }
            Node node = live.get(key);
            if (node == null || !existed) {
                node = new Node(new byte[0]); // created now: nothing of it is durable yet
                live.put(key, node);
            }
            Channel channel = new Channel(this, key, node, real, reader);
            open.add(channel);
            return channel;
        }
    }

    @Override
    public void syncDirectory(Path directory) throws IOException {
        Path key = key(directory);
        fail(Op.FSYNC, key);
        disk.syncDirectory(directory);
        synchronized (this) {
            checkPower();
            Set<Path> names = new HashSet<>(live.keySet());
            names.addAll(durable.keySet());
            for (Path name : names) {
                if (key.equals(name.getParent())) {
                    Node node = live.get(name);
                    if (node == null) {
                        durable.remove(name);
                    } else {
                        durable.put(name, node);
                    }
                }
            }
        }
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        Path from = key(source);
        Path to = key(target);
        synchronized (this) {
            checkPower();
            fail(Op.RENAME, from, to);
            adopt(from);
            adopt(to);
            disk.rename(source, target);
            Node moved = live.remove(from);
            live.put(to, moved == null ? new Node(new byte[0]) : moved);
        }
    }

    @Override
    public boolean delete(Path file) throws IOException {
        Path key = key(file);
        synchronized (this) {
            checkPower();
            adopt(key);
            live.remove(key);
            return disk.delete(file);
        }
    }

    @Override
    public List<Path> list(Path directory) throws IOException {
        checkPower();
        return disk.list(directory);
    }

    @Override
    public boolean exists(Path file) {
        return !off && disk.exists(file);
    }

    @Override
    public long size(Path file) throws IOException {
        checkPower();
        return disk.size(file);
    }

    @Override
    public void createDirectories(Path directory) throws IOException {
        checkPower();
        disk.createDirectories(directory);
    }

    @Override
    public long usableSpace(Path path) throws IOException {
        checkPower();
        long reported = reportedFree;
        if (reported >= 0) {
            return reported;
        }
        for (Fault fault : faults) {
            if (fault.message.equals(NO_SPACE) && fault.fired() > 0) {
                return 0;
            }
        }
        return disk.usableSpace(path);
    }

    @Override
    public String toString() {
        return "FaultyStorage{" + faults.size() + " faults, " + flips.size() + " bit flips" + (off ? ", off}" : "}");
    }

    private Fault add(Fault fault) {
        faults.add(fault);
        return fault;
    }

    private static Path key(Path file) {
        return file.toAbsolutePath().normalize();
    }

    /** Starts tracking {@code file} if it exists and was not seen before: as durable as it is. */
    private boolean adopt(Path file) throws IOException {
        if (live.containsKey(file)) {
            return true;
        }
        if (durable.containsKey(file) || !Files.isRegularFile(file)) {
            return Files.exists(file);
        }
        Node node = new Node(Files.readAllBytes(file));
        live.put(file, node);
        durable.put(file, node);
        return true;
    }

    private void checkPower() throws IOException {
        if (off) {
            throw new IOException("the power is off");
        }
    }

    /** Throws the failure of the first fault {@code op} on any of {@code files} hits. */
    private void fail(Op op, Path... files) throws IOException {
        checkPower();
        for (Fault fault : faults) {
            if (fault.hits(op, files)) {
                throw new IOException(fault.message + " (" + op + " of " + files[files.length - 1] + ", injected)");
            }
        }
    }

    /** Records that {@code node} is durable as {@code real} holds it now. */
    private synchronized void forced(Node node, FileChannel real) throws IOException {
        checkPower();
        long size = real.size();
        ByteBuffer contents = ByteBuffer.allocate(Math.toIntExact(size));
        while (contents.hasRemaining() && real.read(contents, contents.position()) >= 0) {
            // until the size it had
        }
        node.synced = contents.array();
    }

    /** Inverts the flipped bits of {@code file}'s bytes {@code [at, at + length)}, read into {@code into} at {@code start}. */
    private void flipRead(Path file, ByteBuffer into, int start, long at, int length) {
        String name = file.getFileName().toString();
        for (BitFlip flip : flips) {
            if (flip.offset() >= at && flip.offset() < at + length && flip.names().matcher(name).matches()) {
                int index = start + (int) (flip.offset() - at);
                into.put(index, (byte) (into.get(index) ^ flip.mask()));
            }
        }
    }

    private boolean flipsIn(Path file, long at, long length) {
        String name = file.getFileName().toString();
        for (BitFlip flip : flips) {
            if (flip.offset() >= at && flip.offset() < at + length && flip.names().matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    /**
     * A read-only mapping of {@code [at, at + length)} of {@code real} with the flipped bits inverted: a
     * mapping of a copy, since a mapping of the file itself would show its true bytes.
     */
    private MappedByteBuffer mapFlipped(Path file, FileChannel real, long at, long length) throws IOException {
        ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(length));
        while (copy.hasRemaining() && real.read(copy, at + copy.position()) >= 0) {
            // the region, or what the file holds of it
        }
        flipRead(file, copy, 0, at, copy.position());
        copy.flip();
        Path shadow = Files.createTempFile("flipped-", ".map");
        try {
            Files.write(shadow, copy.array());
            try (FileChannel channel = FileChannel.open(shadow, StandardOpenOption.READ)) {
                return channel.map(FileChannel.MapMode.READ_ONLY, 0, length);
            }
        } finally {
            Files.delete(shadow); // the mapping outlives the name
        }
    }

    /** A channel of this storage: checks faults and power, then does the real operation. */
    private static final class Channel extends FileChannel {
        private final FaultyStorage storage;
        private final Path file;
        private final Node node;
        private final FileChannel real;
        /** The same file, open for reading. */
        private final FileChannel reader;

        Channel(FaultyStorage storage, Path file, Node node, FileChannel real, FileChannel reader) {
            this.storage = storage;
            this.file = file;
            this.node = node;
            this.real = real;
            this.reader = reader;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            storage.fail(Op.READ, file);
            long at = real.position();
            int start = dst.position();
            int n = real.read(dst);
            if (n > 0) {
                storage.flipRead(file, dst, start, at, n);
            }
            return n;
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                if (!dsts[i].hasRemaining()) {
                    continue;
                }
                int n = read(dsts[i]);
                if (n < 0) {
                    return total == 0 ? -1 : total;
                }
                total += n;
                if (dsts[i].hasRemaining()) {
                    break;
                }
            }
            return total;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            storage.fail(Op.READ, file);
            int start = dst.position();
            int n = real.read(dst, position);
            if (n > 0) {
                storage.flipRead(file, dst, start, position, n);
            }
            return n;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            storage.fail(Op.WRITE, file);
            return real.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            storage.fail(Op.WRITE, file);
            return real.write(srcs, offset, length);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            storage.fail(Op.WRITE, file);
            return real.write(src, position);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            storage.fail(Op.FSYNC, file);
            real.force(metaData);
            storage.forced(node, reader);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            storage.checkPower();
            if (mode == MapMode.READ_ONLY && storage.flipsIn(file, position, size)) {
                return storage.mapFlipped(file, reader, position, size);
            }
            return real.map(mode, position, size);
        }

        @Override
        public long position() throws IOException {
            return real.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            real.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            storage.checkPower();
            return real.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            storage.checkPower();
            real.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(count, 1 << 16));
            long done = 0;
            while (done < count) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
                int n = read(buffer, position + done);
                if (n <= 0) {
                    break;
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    target.write(buffer);
                }
                done += n;
            }
            return done;
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(count, 1 << 16));
            long done = 0;
            while (done < count) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
                int n = src.read(buffer);
                if (n <= 0) {
                    break;
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    done += write(buffer, position + done);
                }
            }
            return done;
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            storage.checkPower();
            return real.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            storage.checkPower();
            return real.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            synchronized (storage) {
                storage.open.remove(this);
            }
            try (reader) {
                real.close();
            }
        }
    }
}
