package io.kvstore.server.wire;

import io.kvstore.cluster.internal.EntryCodec;
import io.vertx.core.buffer.Buffer;

/** A {@link Buffer} as what {@link EntryCodec} writes to: each write appends. */
record BufferOutput(Buffer buffer) implements EntryCodec.Output {
    @Override
    public void writeByte(byte value) {
        buffer.appendByte(value);
    }

    @Override
    public void writeInt(int value) {
        buffer.appendInt(value);
    }

    @Override
    public void writeLong(long value) {
        buffer.appendLong(value);
    }

    @Override
    public void writeBytes(byte[] bytes) {
        buffer.appendBytes(bytes);
    }
}
