package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kvstore.server.internode.ClosedBeforeSendGuard;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.WebClientInternal;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A request whose connection closes after it is made and before it is sent fails with the close;
 * nothing throws on an event loop and nothing is logged (without the guard, the web client throws on
 * the event loop, which Vert.x logs as an unhandled exception). The close is staged by an interceptor ahead of the guard, where
 * in a cluster a stopping peer closes it.
 */
class ClosedBeforeSendGuardTest {
    private Vertx vertx;
    private HttpServer peer;

    @BeforeEach
    void setUp() throws Exception {
        vertx = Vertx.vertx();
        peer = vertx.createHttpServer().requestHandler(request -> request.response().setStatusCode(201).end())
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private WebClient clientClosingEachConnectionBeforeSend() {
        WebClient client = WebClient.create(vertx, new WebClientOptions());
        ((WebClientInternal) client).addInterceptor(context -> {
            if (context.phase() == ClientPhase.SEND_REQUEST) {
                context.clientRequest().connection().close();
                context.clientRequest().response().onComplete(closed -> context.next());
            } else {
                context.next();
            }
        });
        ((WebClientInternal) client).addInterceptor(new ClosedBeforeSendGuard());
        return client;
    }

    @Test
    void aRequestClosedBeforeItIsSentFailsWithTheCloseAndNothingThrows() throws Exception {
        WebClient client = clientClosingEachConnectionBeforeSend();
        List<String> logged;
        try (LogCapture log = LogCapture.start()) {
            ExecutionException failure = assertThrows(ExecutionException.class, () -> client
                    .request(HttpMethod.PUT, peer.actualPort(), "127.0.0.1", "/k").sendBuffer(Buffer.buffer("v"))
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertInstanceOf(HttpClosedException.class, failure.getCause());
            logged = log.warningsAndErrors();
        }
        assertEquals(List.of(), logged, "logged while the request failed");
    }

    @Test
    void aRequestWhoseConnectionStaysOpenIsSentAsUsual() throws Exception {
        WebClient client = WebClient.create(vertx, new WebClientOptions());
        ((WebClientInternal) client).addInterceptor(new ClosedBeforeSendGuard());
        int status = client.request(HttpMethod.PUT, peer.actualPort(), "127.0.0.1", "/k").sendBuffer(Buffer.buffer("v"))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).statusCode();
        assertEquals(201, status);
    }
}
