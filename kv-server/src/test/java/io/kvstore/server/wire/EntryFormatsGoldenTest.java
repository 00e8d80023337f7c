package io.kvstore.server.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.kvstore.cluster.internal.repair.EntryBatch;
import io.kvstore.cluster.internal.repair.KeyVersion;
import io.kvstore.cluster.internal.repair.VersionPage;
import io.kvstore.core.Entry;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.client.HttpResponse;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Pins the bytes every form of an entry takes on the wire: the internal entity route's query, headers
 * and status, the bodies of the repair and batched routes, and range frames. Nodes of different
 * versions talk to each other, so none of them may change; each form must also give back the entry it
 * was made of.
 */
class EntryFormatsGoldenTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final Entry VALUE = Entry.value(b("k1"), b("v1"), 0x0102030405060708L);
    private static final Entry TOMBSTONE = Entry.tombstone(b("k2"), 2);
    private static final Entry EMPTY_VALUE = Entry.value(b("k3"), new byte[0], 3);
    private static final Entry EXPIRING = Entry.value(b("k4"), b("ttl"), 4, 1_700_000_000_000L);
    private static final List<Entry> ENTRIES = List.of(VALUE, TOMBSTONE, EMPTY_VALUE, EXPIRING);

    /** Each entry as a repair or batch body has it: key, timestamp, value length (-1: tombstone), value, expiry. */
    private static final String BODY_VALUE = "00000002" + "6b31" + "0102030405060708" + "00000002" + "7631" + "7fffffffffffffff";
    private static final String BODY_TOMBSTONE = "00000002" + "6b32" + "0000000000000002" + "ffffffff";
    private static final String BODY_EMPTY_VALUE = "00000002" + "6b33" + "0000000000000003" + "00000000" + "7fffffffffffffff";
    private static final String BODY_EXPIRING = "00000002" + "6b34" + "0000000000000004" + "00000003" + "74746c"
            + "0000018bcfe56800";
    private static final String BODY_ENTRIES = "00000004" + BODY_VALUE + BODY_TOMBSTONE + BODY_EMPTY_VALUE + BODY_EXPIRING;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(Buffer buffer) {
        return HEX.formatHex(buffer.getBytes());
    }

    // ---- repair and batched bodies

    @Test
    void entriesBodyKeepsItsBytes() {
        assertEquals(BODY_ENTRIES, hex(RepairProtocol.entries(ENTRIES)));
        assertEquals(BODY_ENTRIES, hex(BatchCodec.writesBody(ENTRIES)));
        assertEquals(ENTRIES, new RepairProtocol.Reader(HEX.parseHex(BODY_ENTRIES), "body", 100).entries());
        assertEquals(ENTRIES, BatchCodec.writes(HEX.parseHex(BODY_ENTRIES)));
    }

    @Test
    void entryBatchKeepsItsBytes() {
        EntryBatch batch = new EntryBatch(List.of(TOMBSTONE, EXPIRING), 5);
        String golden = "00000005" + "00000002" + BODY_TOMBSTONE + BODY_EXPIRING;
        assertEquals(golden, hex(RepairProtocol.batch(batch)));
        EntryBatch back = new RepairProtocol.Reader(HEX.parseHex(golden), "batch", 100).batch();
        assertEquals(batch.entries(), back.entries());
        assertEquals(5, back.keysRead());
    }

    @Test
    void versionPageKeepsItsBytes() {
        VersionPage page = new VersionPage(List.of(new KeyVersion(b("k1"), 7, false, 0x11),
                new KeyVersion(b("k2"), 8, true, 0)), false, b("k2"));
        String golden = "00" + "00000002" + "6b32" + "00000002"
                + "00000002" + "6b31" + "0000000000000007" + "00" + "0000000000000011"
                + "00000002" + "6b32" + "0000000000000008" + "01" + "0000000000000000";
        assertEquals(golden, hex(RepairProtocol.page(page)));
    }

    @Test
    void readsBodyAndAnswersKeepTheirBytes() {
        String reads = "00000002" + "00000002" + "6b31" + "00000002" + "6b32";
        assertEquals(reads, hex(BatchCodec.readsBody(List.of(b("k1"), b("k2")))));
        Buffer answer = BatchCodec.answer(3);
        BatchCodec.done(answer);
        BatchCodec.refused(answer, "no");
        BatchCodec.version(answer, EXPIRING);
        assertEquals("00000003" + "00" + "01" + "00000002" + "6e6f" + "02" + BODY_EXPIRING, hex(answer));
        Buffer tombstone = BatchCodec.version(BatchCodec.answer(1), TOMBSTONE);
        assertEquals("00000001" + "02" + BODY_TOMBSTONE, hex(tombstone));
        assertEquals(TOMBSTONE, BatchCodec.readOutcomes(List.of(b("k2")), 200, tombstone, "n").get(0).result());
        assertEquals(EXPIRING, BatchCodec.readOutcomes(List.of(b("k4")), 200,
                BatchCodec.version(BatchCodec.answer(1), EXPIRING), "n").get(0).result());
    }

    // ---- range frames

    @Test
    void rangeFramesKeepTheirBytes() {
        Buffer body = Buffer.buffer();
        for (Entry entry : ENTRIES) {
            RangeFrames.append(body, entry);
        }
        body.appendBuffer(RangeFrames.end());
        String golden = "01" + "00000002" + "6b31" + "0102030405060708" + "00" + "00000002" + "7631"
                + "01" + "00000002" + "6b32" + "0000000000000002" + "01" + "00000000"
                + "01" + "00000002" + "6b33" + "0000000000000003" + "00" + "00000000"
                + "01" + "00000002" + "6b34" + "0000000000000004" + "02" + "00000003" + "0000018bcfe56800" + "74746c"
                + "00";
        assertEquals(golden, hex(body));
        RangeFrames.Decoder decoder = new RangeFrames.Decoder("n", 100, 100);
        decoder.feed(Buffer.buffer(HEX.parseHex(golden)));
        List<Entry> back = new ArrayList<>();
        for (Entry entry = decoder.poll(); entry != null; entry = decoder.poll()) {
            back.add(entry);
        }
        assertEquals(ENTRIES, back);
    }

    // ---- the internal entity route

    @Test
    void internalWritesKeepTheirQueryMethodAndStatus() {
        assertEquals("/internal/v0/entity?key=azE&ts=72623859790382856", InternalCodec.writeUri(VALUE));
        assertEquals("/internal/v0/entity?key=azI&ts=2", InternalCodec.writeUri(TOMBSTONE));
        assertEquals("/internal/v0/entity?key=azM&ts=3", InternalCodec.writeUri(EMPTY_VALUE));
        assertEquals("/internal/v0/entity?key=azQ&ts=4&exp=1700000000000", InternalCodec.writeUri(EXPIRING));
        assertEquals(List.of(HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PUT, HttpMethod.PUT),
                ENTRIES.stream().map(InternalCodec::writeMethod).toList());
        assertEquals(List.of(201, 202, 201, 201), ENTRIES.stream().map(InternalCodec::writeStatus).toList());
        for (Entry entry : ENTRIES) {
            String uri = InternalCodec.writeUri(entry);
            String query = uri.substring(uri.indexOf('?') + 1);
            byte[] key = InternalCodec.requestKey(query);
            assertEquals(entry, InternalCodec.requestEntry(InternalCodec.writeMethod(entry), key, query,
                    entry.isTombstone() ? new byte[0] : entry.value()));
        }
    }

    @Test
    void internalReadAnswersKeepTheirStatusHeadersAndBody() {
        assertEquals(Map.of("status", "200", "body", "7631",
                Headers.TIMESTAMP, "72623859790382856", Headers.TOMBSTONE, "false"), answer(VALUE));
        assertEquals(Map.of("status", "200", "body", "",
                Headers.TIMESTAMP, "2", Headers.TOMBSTONE, "true"), answer(TOMBSTONE));
        assertEquals(Map.of("status", "200", "body", "",
                Headers.TIMESTAMP, "3", Headers.TOMBSTONE, "false"), answer(EMPTY_VALUE));
        assertEquals(Map.of("status", "200", "body", "74746c", Headers.TIMESTAMP, "4", Headers.TOMBSTONE, "false",
                Headers.EXPIRES, "1700000000000"), answer(EXPIRING));
        assertEquals(Map.of("status", "404", "body", ""), answer(null));
        for (Entry entry : ENTRIES) {
            assertEquals(entry, InternalCodec.readAnswer(entry.key(), response(answer(entry)), "n"));
        }
        assertNull(InternalCodec.readAnswer(b("k"), response(answer(null)), "n"));
    }

    /** What {@link InternalCodec#answerRead} sends: its status, headers and body (hex). */
    private static Map<String, String> answer(Entry entry) {
        Map<String, String> sent = new TreeMap<>();
        sent.put("body", "");
        HttpServerResponse response = (HttpServerResponse) Proxy.newProxyInstance(EntryFormatsGoldenTest.class.getClassLoader(),
                new Class<?>[] {HttpServerResponse.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "setStatusCode" -> sent.put("status", args[0].toString());
                        case "putHeader" -> sent.put(args[0].toString(), args[1].toString());
                        case "end" -> {
                            if (args != null && args.length == 1) {
                                sent.put("body", hex((Buffer) args[0]));
                            }
                            return null;
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                    return proxy;
                });
        InternalCodec.answerRead(response, entry);
        return sent;
    }

    /** A client's view of an answer {@link #answer} recorded. */
    @SuppressWarnings("unchecked")
    private static HttpResponse<Buffer> response(Map<String, String> sent) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        sent.forEach((name, value) -> {
            if (!name.equals("status") && !name.equals("body")) {
                headers.add(name, value);
            }
        });
        return (HttpResponse<Buffer>) Proxy.newProxyInstance(EntryFormatsGoldenTest.class.getClassLoader(),
                new Class<?>[] {HttpResponse.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "statusCode" -> Integer.parseInt(sent.get("status"));
                    case "getHeader" -> headers.get(args[0].toString());
                    case "body" -> Buffer.buffer(HEX.parseHex(sent.get("body")));
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
