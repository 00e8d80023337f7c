package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console's static files: the listed ones with their content types and a strict
 * Content-Security-Policy, and nothing else under {@code /ui}, however the path is spelt.
 */
class ConsoleFilesTest {
    @TempDir
    Path dir;
    private TestCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster(dir, 1);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void servesThePageAndItsFilesWithTheirTypesAndPolicy() throws Exception {
        for (String path : List.of("/ui", "/ui/", "/ui/index.html")) {
            HttpResponse<byte[]> page = cluster.send(0, "GET", path, null);
            assertEquals(200, page.statusCode(), path);
            assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElse(""));
            assertTrue(new String(page.body(), StandardCharsets.UTF_8).contains("<script src=\"/ui/console.js\""));
            String policy = page.headers().firstValue("Content-Security-Policy").orElse("");
            assertTrue(policy.contains("script-src 'self'"), policy);
            assertTrue(policy.contains("default-src 'none'"), policy);
            assertFalse(policy.contains("unsafe"), policy);
            assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElse(""));
        }
        assertEquals("text/javascript; charset=utf-8",
                cluster.send(0, "GET", "/ui/console.js", null).headers().firstValue("Content-Type").orElse(""));
        assertEquals("text/css; charset=utf-8",
                cluster.send(0, "GET", "/ui/console.css", null).headers().firstValue("Content-Type").orElse(""));
        HttpResponse<byte[]> head = cluster.send(0, "HEAD", "/ui/console.js", null);
        assertEquals(200, head.statusCode());
        assertEquals(0, head.body().length);
        HttpResponse<byte[]> post = cluster.send(0, "POST", "/ui", new byte[0]);
        assertEquals(405, post.statusCode());
    }

    @Test
    void anyOtherPathUnderUiIsNotFoundWithThePolicy() throws Exception {
        for (String path : List.of("/ui/nope.js", "/ui/console.js/", "/ui//console.js", "/ui/META-INF/MANIFEST.MF",
                "/ui/simplelogger.properties", "/ui/io/kvstore/server/console/console.js")) {
            HttpResponse<byte[]> answer = cluster.send(0, "GET", path, null);
            assertEquals(404, answer.statusCode(), path);
            assertTrue(answer.headers().firstValue("Content-Security-Policy").isPresent(), path);
        }
    }

    @Test
    void traversalIsRefused() throws Exception {
        for (String path : List.of("/ui/../..", "/ui/../../etc/passwd", "/ui/%2e%2e/%2e%2e/etc/passwd", "/ui/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                "/ui/..%2f..%2fsimplelogger.properties", "/ui/../v0/status", "/ui/..\\..\\etc\\passwd", "/ui/%252e%252e/")) {
            String answer = cluster.raw(0, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            String status = answer.substring(0, answer.indexOf("\r\n"));
            assertTrue(status.equals("HTTP/1.1 404 Not Found") || status.equals("HTTP/1.1 400 Bad Request"), path + ": " + answer);
            assertFalse(answer.contains("root:"), path);
            assertFalse(answer.contains("\"node\""), path);
            assertFalse(answer.contains("org.slf4j"), path);
        }
    }
}
