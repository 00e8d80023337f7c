package io.kvstore.core.internal.util;

import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The few C library calls the engine makes through JNA's direct mapping. Registered on first use, so
 * that a missing JNA, an optional dependency of kv-core, surfaces as a {@link LinkageError} the caller
 * catches and falls back from.
 */
final class LibC {
    static {
        Native.register(Platform.C_LIBRARY_NAME);
    }

    private LibC() {
    }

    static native int getpriority(int which, int who);

    static native int setpriority(int which, int who, int prio);

    static native int sched_getscheduler(int pid);

    /** {@code param}: struct sched_param, one int (the static priority, 0 for SCHED_IDLE). */
    static native int sched_setscheduler(int pid, int policy, int[] param);

    /** {@code path}: the file name's bytes ending with a NUL. */
    static native int open(byte[] path, int flags);

    static native int close(int fd);

    /** Linux only; offsets are 64-bit on 64-bit platforms, where callers use it. */
    static native int sync_file_range(int fd, long offset, long nbytes, int flags);
}
