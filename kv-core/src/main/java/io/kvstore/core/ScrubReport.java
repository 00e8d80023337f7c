package io.kvstore.core;

import java.util.List;

/**
 * One pass of a scrub ({@link Dao#scrub}), which reads every live table and checks every checksum it
 * holds, finished or still under way: what it set out to check, how far it got, and the damage it
 * found (each damaged table quarantined as a failed read would have it).
 *
 * @param startedAtMillis when the pass started, in milliseconds since the epoch
 * @param tables          live tables when the pass started
 * @param bytes           their bytes
 * @param tablesChecked   tables checked so far (a table compacted away before its turn is not)
 * @param bytesChecked    their bytes
 * @param quarantined     the intervals refused for the damaged tables the pass found
 * @param finished        whether the pass went through every table (false while under way, or if the
 *                        store closed first)
 */
public record ScrubReport(long startedAtMillis, int tables, long bytes, int tablesChecked, long bytesChecked,
                          List<QuarantinedInterval> quarantined, boolean finished) {
    public ScrubReport {
        quarantined = List.copyOf(quarantined);
    }
}
