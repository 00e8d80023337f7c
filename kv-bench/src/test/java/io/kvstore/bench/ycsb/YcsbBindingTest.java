package io.kvstore.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** Both YCSB bindings do what YCSB expects of a DB: insert, read (some fields), update, scan, delete. */
class YcsbBindingTest {

    @Test
    void embeddedBindingOnEveryEngine(@TempDir Path dir) throws Exception {
        for (BenchEngine benchEngine : BenchEngine.values()) {
            String engine = benchEngine.id();
            Properties p = new Properties();
            p.setProperty("kvstore.engine", engine);
            p.setProperty("kvstore.dir", dir.resolve(engine).toString());
            DB db = new KvStoreYcsbDb();
            db.setProperties(p);
            db.init();
            try {
                exercise(db, true);
            } finally {
                db.cleanup();
            }
        }
    }

    @Test
    void httpBindingAgainstARealNode(@TempDir Path dir) throws Exception {
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir)
                .network(network -> network.eventLoops(1)).build())
                .toCompletableFuture().get();
        try {
            Properties p = new Properties();
            p.setProperty("kvstore.urls", "http://127.0.0.1:" + server.port());
            DB db = new HttpYcsbDb();
            db.setProperties(p);
            db.init();
            try {
                exercise(db, false);
                // The binding and the server agree on a key's bytes: a space is %20, a plus a plus.
                assertEquals(Status.OK, db.insert("usertable", "a b+c", Map.of("f", new StringByteIterator("x"))));
                HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + server.port() + "/v0/entity?id=usertable%3Aa%20b%2Bc")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, raw.statusCode());
            } finally {
                db.cleanup();
            }
        } finally {
            server.stop().toCompletableFuture().get();
        }
    }

    private static void exercise(DB db, boolean scans) {
        for (int i = 0; i < 20; i++) {
            Map<String, ByteIterator> values = new HashMap<>();
            values.put("field0", new StringByteIterator("a" + i));
            values.put("field1", new StringByteIterator("b" + i));
            assertEquals(Status.OK, db.insert("usertable", "user" + (100 + i), values));
        }
        Map<String, ByteIterator> read = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user105", Set.of("field1"), read));
        assertEquals(Map.of("field1", "b5"), StringByteIterator.getStringMap(read));
        assertEquals(Status.OK, db.update("usertable", "user105", Map.of("field0", new StringByteIterator("changed"))));
        read.clear();
        assertEquals(Status.OK, db.read("usertable", "user105", null, read));
        assertEquals(Map.of("field0", "changed", "field1", "b5"), StringByteIterator.getStringMap(read));
        if (scans) {
            Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
            assertEquals(Status.OK, db.scan("usertable", "user110", 5, null, rows));
            assertEquals(5, rows.size());
            assertEquals("a10", rows.get(0).get("field0").toString());
        }
        assertEquals(Status.OK, db.delete("usertable", "user105"));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user105", null, new HashMap<>()));
    }
}
