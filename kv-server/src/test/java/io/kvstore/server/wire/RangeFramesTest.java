package io.kvstore.server.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeFramesTest {
    private static final List<Entry> ENTRIES = List.of(
            Entry.value(b("a"), b("first"), 1),
            Entry.tombstone(b("b"), 2),
            Entry.value(b("c"), new byte[0], Long.MAX_VALUE),
            Entry.value(b("d\n\u0000"), b("x".repeat(1000)), 7),
            Entry.value(b("e"), b("expiring"), 8, 1_700_000_000_000L),
            Entry.value(b("f"), new byte[0], 9, 1));

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Buffer encoded() {
        Buffer body = Buffer.buffer();
        for (Entry e : ENTRIES) {
            RangeFrames.append(body, e);
        }
        return body.appendBuffer(RangeFrames.end());
    }

    private static List<Entry> drain(RangeFrames.Decoder decoder) {
        List<Entry> out = new ArrayList<>();
        for (Entry e = decoder.poll(); e != null; e = decoder.poll()) {
            out.add(e);
        }
        return out;
    }

    @Test
    void everyEntryComesBackWhereverTheChunksAreCut() {
        Buffer body = encoded();
        for (int cut = 0; cut <= body.length(); cut++) {
            RangeFrames.Decoder decoder = new RangeFrames.Decoder("node", 100, 10_000);
            decoder.feed(body.getBuffer(0, cut));
            List<Entry> got = drain(decoder);
            decoder.feed(body.getBuffer(cut, body.length()));
            got.addAll(drain(decoder));
            assertEquals(ENTRIES, got, "cut at " + cut);
            assertTrue(decoder.ended(), "cut at " + cut);
            assertEquals(0, decoder.queuedBytes());
        }
    }

    @Test
    void aBodyWithoutItsEndFrameIsNotEnded() {
        Buffer body = encoded();
        RangeFrames.Decoder decoder = new RangeFrames.Decoder("node", 100, 10_000);
        decoder.feed(body.getBuffer(0, body.length() - 1));
        assertEquals(ENTRIES, drain(decoder));
        assertFalse(decoder.ended());
        assertNull(decoder.peek());
    }

    @Test
    void malformedFramesAreRefusedWithTheNodeAndOffset() {
        assertMalformed(Buffer.buffer().appendByte((byte) 7), "frame type 7");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(0), "key length 0");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(101), "key length 101");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(1).appendByte((byte) 'k')
                .appendLong(-1).appendByte((byte) 0).appendInt(0), "timestamp -1");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(1).appendByte((byte) 'k')
                .appendLong(1).appendByte((byte) 3).appendInt(0), "flags 3");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(1).appendByte((byte) 'k')
                .appendLong(1).appendByte((byte) 2).appendInt(0).appendLong(0), "expiry 0");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(1).appendByte((byte) 'k')
                .appendLong(1).appendByte((byte) 1).appendInt(3), "value length 3");
        assertMalformed(Buffer.buffer().appendByte(RangeFrames.ENTRY).appendInt(1).appendByte((byte) 'k')
                .appendLong(1).appendByte((byte) 0).appendInt(10_001), "value length 10001");
        assertMalformed(RangeFrames.end().appendByte((byte) 0), "bytes after the end frame");
        Buffer second = RangeFrames.append(Buffer.buffer(), ENTRIES.get(0));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new RangeFrames.Decoder("node", 100, 10_000)
                .feed(second.copy().appendByte((byte) 9)));
        assertTrue(e.getMessage().contains("at offset " + second.length()), e.getMessage());
    }

    private static void assertMalformed(Buffer body, String what) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new RangeFrames.Decoder("http://peer:1", 100, 10_000).feed(body));
        assertTrue(e.getMessage().contains("http://peer:1") && e.getMessage().contains(what), e.getMessage());
    }
}
