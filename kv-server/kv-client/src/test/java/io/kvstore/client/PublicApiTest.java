package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.ApiSurface;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * kv-client's public API is the list below and nothing else: a public top-level class outside
 * {@code io.kvstore.client.internal} fails this test until it is added here on purpose, no public
 * signature of the API names an internal type, and none names a Vert.x or Netty type but the
 * deprecated ones kept for the programs written against them.
 */
class PublicApiTest {
    private static final String INTERNAL = "io.kvstore.client.internal.";
    private static final ApiSurface SURFACE = new ApiSurface(KvClient.class, INTERNAL);

    /** Every public top-level type of kv-client outside the internal package. */
    private static final Set<String> API = Set.of(
            "io.kvstore.client.BlockingKvClient",
            "io.kvstore.client.CallOptions",
            "io.kvstore.client.InvalidRequestException",
            "io.kvstore.client.KeyValue",
            "io.kvstore.client.KvClient",
            "io.kvstore.client.KvClientException",
            "io.kvstore.client.OverloadedException",
            "io.kvstore.client.QuorumNotReachedException",
            "io.kvstore.client.RangeIterator",
            "io.kvstore.client.TlsEngine");

    @Test
    void onlyTheListedTypesArePublicOutsideInternal() throws Exception {
        SURFACE.assertPublicTypes("kv-client", API);
    }

    @Test
    void theScanSeesTheInternalPackage() throws Exception {
        // Guards the scan itself: were it to miss the compiled classes, the list above could not fail.
        List<String> all = SURFACE.topLevelClassNames();
        assertTrue(all.contains("io.kvstore.client.RoutingTable"), "no RoutingTable among " + all.size() + " classes");
        assertTrue(Modifier.isPublic(SURFACE.load(INTERNAL + "VertxTls").getModifiers()));
    }

    @Test
    void noApiSignatureNamesAnInternalType() throws Exception {
        SURFACE.assertNoInternalTypeNamedBy(API);
    }

    @Test
    void onlyDeprecatedSignaturesNameVertxOrNettyTypes() throws Exception {
        List<String> named = new ArrayList<>(new ApiSurface(KvClient.class, "io.vertx.").internalTypesNamedBy(API));
        named.addAll(new ApiSurface(KvClient.class, "io.netty.").internalTypesNamedBy(API));
        assertEquals(List.of(
                "public io.kvstore.client.KvClient$Builder io.kvstore.client.KvClient$Builder.vertx(io.vertx.core.Vertx):"
                        + " io.vertx.core.Vertx",
                "public java.util.concurrent.CompletionStage io.kvstore.client.KvClient.put(byte[],io.vertx.core.buffer.Buffer,"
                        + "io.kvstore.client.CallOptions): io.vertx.core.buffer.Buffer",
                "public io.vertx.core.net.SSLEngineOptions io.kvstore.client.TlsEngine.vertxOptions():"
                        + " io.vertx.core.net.SSLEngineOptions"), named);
        List<Method> deprecated = List.of(
                KvClient.Builder.class.getMethod("vertx", Vertx.class),
                KvClient.class.getMethod("put", byte[].class, Buffer.class, CallOptions.class),
                TlsEngine.class.getMethod("vertxOptions"));
        for (Method method : deprecated) {
            assertTrue(method.isAnnotationPresent(Deprecated.class), method + " is deprecated");
        }
    }
}
