package io.kvstore.core.internal.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Fixed-width little-endian encoding of integers into byte arrays: the byte order of every on-disk
 * format in kvstore. Also a big-endian 8-byte read, used to compare keys eight bytes at a time in
 * unsigned lexicographic order.
 */
public final class Coding {
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Coding() {
    }

    public static void putInt(byte[] dst, int offset, int value) {
        INT_LE.set(dst, offset, value);
    }

    public static void putLong(byte[] dst, int offset, long value) {
        LONG_LE.set(dst, offset, value);
    }

    public static int getInt(byte[] src, int offset) {
        return (int) INT_LE.get(src, offset);
    }

    public static long getLong(byte[] src, int offset) {
        return (long) LONG_LE.get(src, offset);
    }

    /** Eight bytes read most-significant first: compares like the bytes under unsigned order. */
    public static long getLongBigEndian(byte[] src, int offset) {
        return (long) LONG_BE.get(src, offset);
    }
}
