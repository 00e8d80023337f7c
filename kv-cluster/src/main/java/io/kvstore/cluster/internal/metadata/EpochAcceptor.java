package io.kvstore.cluster.internal.metadata;

import io.kvstore.core.AtomicFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * One node's acceptor: for each undecided epoch, the highest ballot it promised and the value it accepted
 * last, kept durably before it answers (a promise forgotten in a crash could let two values be chosen).
 * An epoch its node has committed is answered with {@link EpochReply.Decided} and forgotten, so the
 * state holds only the few epochs above the node's map. Thread-safe.
 */
public final class EpochAcceptor {
    private static final int FORMAT = 0x4B565031; // "KVP1"
    /** Accepted values are maps: far below this, which only guards against a damaged file. */
    private static final int MAX_VALUE_BYTES = 64 << 20;

    /** Where the state is kept: read once when opening, replaced whole and synced before each answer. */
    public interface Persistence {
        /** The saved state, or null if none was saved. */
        byte[] load() throws IOException;

        void save(byte[] state) throws IOException;

        /** State kept in {@code file}. */
        static Persistence of(AtomicFile file) {
            return new Persistence() {
                @Override
                public byte[] load() throws IOException {
                    return file.read();
                }

                @Override
                public void save(byte[] state) throws IOException {
                    file.replace(state);
                }
            };
        }
    }

    /** What this acceptor's node committed last: the epoch and its value. */
    public record Committed(long epoch, byte[] value) {
    }

    /** The state of one epoch. */
    private record Slot(Ballot promised, Ballot accepted, byte[] value) {
    }

    /** An epoch above the node's map for which this acceptor accepted a value. */
    public record Pending(long epoch, Ballot ballot, byte[] value) {
    }

    private final Persistence persistence;
    private final Supplier<Committed> committed;
    private final TreeMap<Long, Slot> slots;

    private EpochAcceptor(Persistence persistence, Supplier<Committed> committed, TreeMap<Long, Slot> slots) {
        this.persistence = persistence;
        this.committed = committed;
        this.slots = slots;
    }

    /**
     * Opens the acceptor whose state {@code persistence} keeps.
     *
     * @param committed what the node committed last (null before it has a map)
     * @throws IOException if the state cannot be read or is damaged (the message says which)
     */
    public static EpochAcceptor open(Persistence persistence, Supplier<Committed> committed) throws IOException {
        byte[] saved = persistence.load();
        return new EpochAcceptor(persistence, committed, saved == null ? new TreeMap<>() : decode(saved));
    }

    /** Answers {@code request}, having kept any promise or acceptance it makes. */
    public synchronized EpochReply handle(EpochRequest request) throws IOException {
        Committed decided = committed.get();
        if (decided != null && decided.epoch() >= request.epoch()) {
            return new EpochReply.Decided(decided.epoch(), decided.value());
        }
        Slot slot = slots.getOrDefault(request.epoch(), new Slot(null, null, null));
        if (!request.ballot().atLeast(slot.promised())) {
            return new EpochReply.Refused(slot.promised());
        }
        Slot next;
        EpochReply reply;
        if (request instanceof EpochRequest.Accept accept) {
            next = new Slot(accept.ballot(), accept.ballot(), accept.value().clone());
            reply = new EpochReply.Accepted();
        } else {
            next = new Slot(request.ballot(), slot.accepted(), slot.value());
            reply = new EpochReply.Promise(slot.accepted(), slot.value() == null ? null : slot.value().clone());
        }
        TreeMap<Long, Slot> updated = new TreeMap<>(slots);
        updated.put(request.epoch(), next);
        if (decided != null) {
            updated.headMap(decided.epoch(), true).clear();
        }
        persistence.save(encode(updated));
        slots.clear();
        slots.putAll(updated);
        return reply;
    }

    /**
     * The value this acceptor accepted for the epoch right after {@code epoch}, if any: a proposer may
     * have died between getting it chosen and telling anyone.
     */
    public synchronized Optional<Pending> acceptedAfter(long epoch) {
        Slot slot = slots.get(epoch + 1);
        return slot == null || slot.accepted() == null ? Optional.empty()
                : Optional.of(new Pending(epoch + 1, slot.accepted(), slot.value().clone()));
    }

    /** How many epochs this acceptor holds state for (the ones above its node's map). */
    public synchronized int epochsHeld() {
        return slots.size();
    }

    private static byte[] encode(Map<Long, Slot> slots) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(FORMAT);
            out.writeInt(slots.size());
            for (Map.Entry<Long, Slot> entry : slots.entrySet()) {
                out.writeLong(entry.getKey());
                writeBallot(out, entry.getValue().promised());
                writeBallot(out, entry.getValue().accepted());
                if (entry.getValue().accepted() != null) {
                    out.writeInt(entry.getValue().value().length);
                    out.write(entry.getValue().value());
                }
            }
        }
        return bytes.toByteArray();
    }

    private static TreeMap<Long, Slot> decode(byte[] saved) throws IOException {
        TreeMap<Long, Slot> slots = new TreeMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(saved))) {
            if (in.readInt() != FORMAT) {
                throw new IOException("not an acceptor state (wrong format marker)");
            }
            int count = in.readInt();
            if (count < 0) {
                throw new IOException("damaged acceptor state: " + count + " epochs");
            }
            for (int i = 0; i < count; i++) {
                long epoch = in.readLong();
                Ballot promised = readBallot(in);
                Ballot accepted = readBallot(in);
                byte[] value = null;
                if (accepted != null) {
                    int length = in.readInt();
                    if (length < 0 || length > MAX_VALUE_BYTES) {
                        throw new IOException("damaged acceptor state: a value of " + length + " bytes");
                    }
                    value = in.readNBytes(length);
                    if (value.length != length) {
                        throw new IOException("damaged acceptor state: truncated value");
                    }
                }
                slots.put(epoch, new Slot(promised, accepted, value));
            }
        } catch (java.io.EOFException e) {
            throw new IOException("damaged acceptor state: truncated", e);
        } catch (IllegalArgumentException e) {
            throw new IOException("damaged acceptor state: " + e.getMessage(), e);
        }
        return slots;
    }

    private static void writeBallot(DataOutputStream out, Ballot ballot) throws IOException {
        out.writeBoolean(ballot != null);
        if (ballot != null) {
            out.writeLong(ballot.round());
            out.writeUTF(ballot.node());
        }
    }

    private static Ballot readBallot(DataInputStream in) throws IOException {
        return in.readBoolean() ? new Ballot(in.readLong(), in.readUTF()) : null;
    }
}
