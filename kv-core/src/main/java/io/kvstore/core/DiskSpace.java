package io.kvstore.core;

/**
 * The free space on a store's disk as the store last saw it, whether it refuses writes for the lack
 * of it ({@link InsufficientStorageException}), the space its flushes and compactions hold, and
 * whether a failing disk stopped its writes until it is reopened. Read from memory: a caller that
 * must not block may ask.
 *
 * @param freeBytes               bytes free to this process on the disk of the data directory; -1 if not known
 * @param minFreeBytes            the floor below which writes are refused ({@link DaoOptions#minFreeBytes()}); 0: none
 * @param refusal                 why writes are refused now, or null while they are taken
 * @param reservedBytes           bytes reserved by the flushes and compactions running now, which a
 *                                compaction must leave free besides the floor before it starts
 * @param compactionWaitsForSpace whether a compaction that is due waits for space to be freed
 * @param writesStopped           why writes stopped until the store is reopened (a failed fsync, or a
 *                                failed write that was not for space, naming the file), or null
 */
public record DiskSpace(long freeBytes, long minFreeBytes, String refusal, long reservedBytes,
                        boolean compactionWaitsForSpace, String writesStopped) {
    /** The answer of an engine that does not watch its disk. */
    public static final DiskSpace UNKNOWN = new DiskSpace(-1, 0, null);

    /** The disk of an engine that reserves nothing for its background work and does not stop its writes. */
    public DiskSpace(long freeBytes, long minFreeBytes, String refusal) {
        this(freeBytes, minFreeBytes, refusal, 0, false, null);
    }

    /** Whether writes stopped until the store is reopened: the disk failed. */
    public boolean stopsWrites() {
        return writesStopped != null;
    }

    /** Whether writes are refused for the lack of space. */
    public boolean refusesWrites() {
        return refusal != null;
    }
}
