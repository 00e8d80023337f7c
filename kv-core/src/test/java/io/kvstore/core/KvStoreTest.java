package io.kvstore.core;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedder's view, on every engine. */
class KvStoreTest {
    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(Engine.class)
    void putGetDeleteLikeAMap(Engine engine) throws IOException {
        try (KvStore store = KvStore.open(engine, DaoOptions.defaults(directory))) {
            assertNull(store.get(bytes("a")));
            store.put(bytes("a"), bytes("1"));
            store.put(bytes("a"), bytes("2"));
            assertArrayEquals(bytes("2"), store.get(bytes("a")));
            store.put(bytes("empty"), new byte[0]);
            assertArrayEquals(new byte[0], store.get(bytes("empty")));
            store.delete(bytes("a"));
            assertNull(store.get(bytes("a")));
            store.delete(bytes("never-there"));
            assertNull(store.get(bytes("never-there")));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void propertiesShowWhatTheEngineHolds(Engine engine) throws IOException {
        try (KvStore store = KvStore.open(engine, DaoOptions.defaults(directory))) {
            store.put(bytes("a"), bytes("1"));
            store.flush();
            DaoProperties properties = store.properties();
            assertEquals(1, properties.tableCount(), properties.toString());
            assertTrue(properties.tableBytes() > 0, properties.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void rangeHidesDeletedKeys(Engine engine) throws IOException {
        try (KvStore store = KvStore.open(engine, DaoOptions.defaults(directory))) {
            for (String k : new String[] {"a", "b", "c", "d", "e"}) {
                store.put(bytes(k), bytes("v" + k));
            }
            store.delete(bytes("b"));
            store.delete(bytes("e"));
            assertEquals(List.of("a=va", "c=vc", "d=vd"), render(store, null, null));
            assertEquals(List.of("c=vc"), render(store, bytes("b"), bytes("d")));
            assertEquals(List.of(), render(store, bytes("e"), null));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void laterPutWinsAcrossReopen(Engine engine) throws IOException {
        DaoOptions options = DaoOptions.defaults(directory);
        for (int round = 0; round < 3; round++) {
            try (KvStore store = KvStore.open(engine, options)) {
                if (round > 0) {
                    assertArrayEquals(bytes("round" + (round - 1)), store.get(bytes("k")));
                }
                store.put(bytes("k"), bytes("round" + round));
                store.delete(bytes("gone"));
                store.put(bytes("gone"), bytes("back" + round));
                store.delete(bytes("gone"));
            }
        }
        try (KvStore store = KvStore.open(engine, options)) {
            assertArrayEquals(bytes("round2"), store.get(bytes("k")));
            assertNull(store.get(bytes("gone")));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void aPutWithATtlReadsAsAbsentOnceItExpiresAcrossReopen(Engine engine) throws IOException {
        AtomicLong clock = new AtomicLong(System.currentTimeMillis());
        DaoOptions options = DaoOptions.builder(directory).clock(clock::get).build();
        try (KvStore store = KvStore.open(engine, options)) {
            store.put(bytes("session"), bytes("s1"), Duration.ofSeconds(30));
            store.put(bytes("user"), bytes("u1"));
            store.put(bytes("token"), bytes("t1"), Duration.ofSeconds(10));
            store.put(bytes("token"), bytes("t2"));
            assertArrayEquals(bytes("s1"), store.get(bytes("session")));
            clock.addAndGet(30_000);
            assertNull(store.get(bytes("session")), "expired");
            assertArrayEquals(bytes("t2"), store.get(bytes("token")), "a put without TTL replaced the expiring value");
            assertEquals(List.of("token=t2", "user=u1"), render(store, null, null));
            store.put(bytes("session"), bytes("s2"), Duration.ofSeconds(30));
            store.flush();
        }
        try (KvStore store = KvStore.open(engine, options)) {
            assertArrayEquals(bytes("s2"), store.get(bytes("session")));
            clock.addAndGet(30_000);
            assertNull(store.get(bytes("session")), "a restart changes nothing");
            assertEquals(List.of("token=t2", "user=u1"), render(store, null, null));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void aTtlThatOverflowsTheClockOrIsNotPositiveIsRefused(Engine engine) throws IOException {
        try (KvStore store = KvStore.open(engine, DaoOptions.defaults(directory))) {
            IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
                    () -> store.put(bytes("k"), bytes("v"), Duration.ofMillis(Long.MAX_VALUE)));
            assertTrue(overflow.getMessage().contains("overflows the clock"), overflow.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.put(bytes("k"), bytes("v"), Duration.ofSeconds(Long.MAX_VALUE)));
            assertThrows(IllegalArgumentException.class, () -> store.put(bytes("k"), bytes("v"), Duration.ZERO));
            assertThrows(IllegalArgumentException.class, () -> store.put(bytes("k"), bytes("v"), Duration.ofMillis(-1)));
            assertNull(store.get(bytes("k")), "nothing was written");
        }
    }

    private static List<String> render(KvStore store, byte[] from, byte[] to) throws IOException {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Map.Entry<byte[], byte[]>> it = store.range(from, to)) {
            while (it.hasNext()) {
                Map.Entry<byte[], byte[]> e = it.next();
                out.add(new String(e.getKey(), StandardCharsets.UTF_8) + "=" + new String(e.getValue(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
