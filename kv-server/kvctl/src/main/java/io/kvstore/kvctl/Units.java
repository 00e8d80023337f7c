package io.kvstore.kvctl;

import java.time.Duration;
import java.util.Locale;

/** Numbers as people read them: bytes in binary units, durations in hours, minutes and seconds, shares in percent. */
final class Units {
    private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

    private Units() {
    }

    /** {@code 1536} is {@code 1.5 KiB}; a negative count (unknown) is {@code ?}. */
    static String bytes(long bytes) {
        if (bytes < 0) {
            return "?";
        }
        if (bytes < 1024) {
            return bytes + " B";
        }
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, BYTE_UNITS[unit]);
    }

    /** {@code 1:02:03} for over an hour, else {@code 2:03} (minutes and seconds). */
    static String duration(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        long hours = seconds / 3600;
        return hours > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", hours, seconds / 60 % 60, seconds % 60)
                : String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }

    /** {@code 0.3333} is {@code 33.3%}. */
    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }
}
