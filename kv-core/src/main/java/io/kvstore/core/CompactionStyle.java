package io.kvstore.core;

/** How the LSM engine merges its tables ({@link DaoOptions#compactionStyle()}); docs/FORMAT.md has both. */
public enum CompactionStyle {
    /**
     * Runs of similar-sized tables merge into one: little rewriting, but shadowed versions wait in
     * ever larger tables, and a merge of the largest ones rewrites a large part of the store at once.
     * The default.
     */
    SIZE_TIERED,
    /**
     * Flushed tables form level 0; below it, levels of tables of bounded size
     * ({@link DaoOptions#targetTableBytes()}), each level ten times the one above
     * ({@link DaoOptions#levelBaseBytes()} for level 1), whose tables do not overlap. A compaction
     * merges one table (or level 0) into the overlapping tables of the next level: bounded jobs and
     * little space taken by shadowed versions, for more rewriting.
     */
    LEVELED
}
