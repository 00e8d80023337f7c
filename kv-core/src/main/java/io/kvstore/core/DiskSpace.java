package io.kvstore.core;

/**
 * The free space on a store's disk as the store last saw it, and whether it refuses writes for the
 * lack of it ({@link InsufficientStorageException}). Read from memory: a caller that must not block
 * may ask.
 *
 * @param freeBytes    bytes free to this process on the disk of the data directory; -1 if not known
 * @param minFreeBytes the floor below which writes are refused ({@link DaoOptions#minFreeBytes()}); 0: none
 * @param refusal      why writes are refused now, or null while they are taken
 */
public record DiskSpace(long freeBytes, long minFreeBytes, String refusal) {
    /** The answer of an engine that does not watch its disk. */
    public static final DiskSpace UNKNOWN = new DiskSpace(-1, 0, null);

    /** Whether writes are refused for the lack of space. */
    public boolean refusesWrites() {
        return refusal != null;
    }
}
