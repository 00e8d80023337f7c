package io.kvstore.core.internal.lsm;

import java.nio.file.Path;
import java.util.Locale;

/** Names of the files in a store's directory: numbered logs and tables, the manifest and the lock. */
final class FileNames {
    static final String MANIFEST = "MANIFEST";
    static final String MANIFEST_TMP = "MANIFEST.tmp";
    static final String LOCK = "LOCK";
    static final String LOG_SUFFIX = ".wal";
    static final String TABLE_SUFFIX = ".sst";

    private FileNames() {
    }

    static Path log(Path dir, long number) {
        return dir.resolve(String.format(Locale.ROOT, "%06d%s", number, LOG_SUFFIX));
    }

    static Path table(Path dir, long number) {
        return dir.resolve(String.format(Locale.ROOT, "%06d%s", number, TABLE_SUFFIX));
    }

    /** The number in a log or table file name with {@code suffix}, or -1 if the name is not one. */
    static long number(String fileName, String suffix) {
        if (!fileName.endsWith(suffix)) {
            return -1;
        }
        String digits = fileName.substring(0, fileName.length() - suffix.length());
        if (digits.isEmpty() || digits.length() > 18) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(digits);
    }
}
