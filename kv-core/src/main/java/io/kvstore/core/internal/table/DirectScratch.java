package io.kvstore.core.internal.table;

import java.nio.ByteBuffer;

/**
 * A thread's direct buffers for calls into the native codecs. lz4-java and zstd-jni pin a heap array
 * for as long as a call on it runs (a JNI critical region), and no collection may start meanwhile: a
 * thread that fails to allocate waits until the call ends. A flush or compaction runs at background
 * priority and may wait long for a core in the middle of such a call, so every request thread would
 * wait with it. Calls on direct buffers pin nothing; the copies in and out cost far less than the codec.
 */
final class DirectScratch {
    private static final int INITIAL_BYTES = 16 << 10;
    private static final ThreadLocal<DirectScratch> PER_THREAD = ThreadLocal.withInitial(DirectScratch::new);

    private ByteBuffer input = ByteBuffer.allocateDirect(INITIAL_BYTES);
    private ByteBuffer output = ByteBuffer.allocateDirect(INITIAL_BYTES);

    private DirectScratch() {
    }

    /** The calling thread's buffers. */
    static DirectScratch get() {
        return PER_THREAD.get();
    }

    /** A direct buffer holding {@code src[0, length)} from index 0, valid until this thread's next call. */
    ByteBuffer input(byte[] src, int length) {
        input = atLeast(input, length);
        input.put(0, src, 0, length);
        return input;
    }

    /** A direct buffer holding {@code src[at, at + length)} from index 0, valid until this thread's next call. */
    ByteBuffer input(ByteBuffer src, int at, int length) {
        input = atLeast(input, length);
        input.put(0, src, at, length);
        return input;
    }

    /** A direct buffer of at least {@code capacity} bytes, valid until this thread's next call. */
    ByteBuffer output(int capacity) {
        output = atLeast(output, capacity);
        return output;
    }

    private static ByteBuffer atLeast(ByteBuffer buffer, int capacity) {
        if (buffer.capacity() >= capacity) {
            return buffer;
        }
        return ByteBuffer.allocateDirect(Math.max(capacity, 2 * buffer.capacity()));
    }
}
