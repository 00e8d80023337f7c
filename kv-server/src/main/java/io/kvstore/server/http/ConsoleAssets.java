package io.kvstore.server.http;

import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The web console's static files, read from the server's jar once. Only the files listed here are
 * served, each by its exact path: nothing is looked up from the request's path, so no path can reach
 * another resource or file ({@code /ui/../..} and its encodings are 404s like any unknown path). Every
 * answer carries a Content-Security-Policy allowing scripts, styles and requests to this origin only,
 * so that even a value the page failed to escape could not run.
 */
final class ConsoleAssets {
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final String RESOURCES = "/io/kvstore/server/console/";

    private record Asset(String contentType, Buffer body) {
    }

    private final Map<String, Asset> assets;

    ConsoleAssets() {
        Asset page = asset("index.html", "text/html; charset=utf-8");
        assets = Map.of(Routes.UI, page, Routes.UI_PREFIX, page, Routes.UI_PREFIX + "index.html", page,
                Routes.UI_PREFIX + "console.js", asset("console.js", "text/javascript; charset=utf-8"),
                Routes.UI_PREFIX + "console.css", asset("console.css", "text/css; charset=utf-8"),
                Routes.UI_PREFIX + "favicon.svg", asset("favicon.svg", "image/svg+xml"));
    }

    void handle(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        response.putHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("X-Frame-Options", "DENY")
                .putHeader("Referrer-Policy", "no-referrer");
        Asset asset = assets.get(request.path());
        if (asset == null) {
            Responses.send(request, 404, "no such console file");
            return;
        }
        if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
            response.putHeader("Allow", "GET, HEAD");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
            return;
        }
        response.putHeader("Content-Type", asset.contentType).putHeader("Cache-Control", "no-cache");
        if (request.method() == HttpMethod.HEAD) {
            response.putHeader("Content-Length", Integer.toString(asset.body.length())).end();
        } else {
            response.end(asset.body);
        }
    }

    private static Asset asset(String name, String contentType) {
        try (InputStream in = ConsoleAssets.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the console file " + name + " is missing from the server's jar");
            }
            return new Asset(contentType, Buffer.buffer(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
