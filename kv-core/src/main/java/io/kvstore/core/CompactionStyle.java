package io.kvstore.core;

/** How the LSM engine merges its tables ({@link DaoOptions#compactionStyle()}); docs/FORMAT.md has both. */
public enum CompactionStyle {
    /**
     * Runs of similar-sized tables merge into one: writers never wait for compaction, but shadowed
     * versions wait in ever larger tables, and a merge of the largest ones rewrites a large part of the
     * store at once.
     */
    SIZE_TIERED,
    /**
     * Flushed tables form level 0; below it, levels of non-overlapping tables of bounded size
     * ({@link DaoOptions#targetTableBytes()}), sized from the data: the last level holds what it holds,
     * each level above a tenth of the next, and level 0 merges into the highest level that needs to
     * hold data (at most about {@link DaoOptions#levelBaseBytes()}). A compaction merges level 0, or one
     * table, into the overlapping tables of the next level: bounded jobs and little space taken by
     * shadowed versions. Writers slow down, then stop, while level 0 holds two, then three times
     * {@link DaoOptions#compactionTrigger()} tables. The default.
     */
    LEVELED
}
