package io.kvstore.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The binding against a real Cassandra node, started by kv-bench/scripts/cassandra.sh on the class path
 * kv-bench-cassandra-node resolved: what YCSB expects of a DB, then the script stopping the node and
 * deleting its data on SIGTERM.
 */
@Tag("slow")
class CassandraYcsbDbTest {
    private static final int RECORDS = 20;

    @Test
    void bindingAgainstARealNode(@TempDir Path dir) throws Exception {
        Path nodeClassPath = Path.of(System.getProperty("cassandra.classpath"));
        assertTrue(Files.isRegularFile(nodeClassPath),
                nodeClassPath + " is missing: build with -am so that kv-bench-cassandra-node writes it");
        Path work = dir.resolve("work");
        ProcessBuilder script = new ProcessBuilder("bash", System.getProperty("cassandra.script"), "1")
                .redirectErrorStream(true);
        script.environment().put("WORK", work.toString());
        script.environment().put("CASSANDRA_CP", Files.readString(nodeClassPath).trim());
        script.environment().put("BINDING_CP", Path.of("target/classes").toAbsolutePath() + ":"
                + Files.readString(Path.of("target/classpath.txt")).trim());
        Process nodes = script.start();
        try {
            List<String> output = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> readUntilReady(nodes, output));
            assertTrue(ready.get(180, TimeUnit.SECONDS), () -> "the script did not get ready: " + output);
            Properties p = new Properties();
            p.setProperty("cassandra.hosts", "127.0.0.1");
            p.setProperty("cassandra.readconsistency", "QUORUM");
            DB db = new CassandraYcsbDb();
            db.setProperties(p);
            db.init();
            try {
                exercise(db);
            } finally {
                db.cleanup();
            }
        } finally {
            nodes.destroy();  // SIGTERM: the script stops the node the same way
            assertTrue(nodes.waitFor(120, TimeUnit.SECONDS), "the script did not stop its node");
        }
        assertEquals(0, nodes.exitValue());
        assertFalse(Files.exists(work), "the script left its work directory");
    }

    private static boolean readUntilReady(Process process, List<String> output) {
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                output.add(line);
                if (line.startsWith("ready:")) {
                    // Keep draining until the script ends, so that it never blocks writing to a full pipe.
                    Thread drain = new Thread(() -> lines.lines().forEach(output::add));
                    drain.setDaemon(true);
                    drain.start();
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private static void exercise(DB db) {
        for (int i = 0; i < RECORDS; i++) {
            assertEquals(Status.OK, db.insert("usertable", "user" + i, record("a" + i, "b" + i)));
        }
        Map<String, ByteIterator> read = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user3", null, read));
        assertEquals("a3", read.get("field0").toString());
        assertEquals("b3", read.get("field1").toString());
        assertEquals(2, read.size(), () -> "fields not written come back: " + read.keySet());

        Map<String, ByteIterator> some = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user4", Set.of("field1"), some));
        assertEquals(Map.of("field1", "b4"), strings(some));

        assertEquals(Status.NOT_FOUND, db.read("usertable", "missing", null, new HashMap<>()));

        // An update writes the fields it carries and leaves the others.
        assertEquals(Status.OK, db.update("usertable", "user3", Map.of("field1", new StringByteIterator("c3"))));
        Map<String, ByteIterator> updated = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user3", null, updated));
        assertEquals(Map.of("field0", "a3", "field1", "c3"), strings(updated));

        // A scan from a key returns its row first, then the rows after it in the ring's order: over every
        // key, the scans' sizes are 1 to RECORDS.
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
            assertEquals(Status.OK, db.scan("usertable", "user" + i, 100, null, rows));
            assertEquals("a" + i, rows.get(0).get("field0").toString());
            sizes.add(rows.size());
        }
        sizes.sort(null);
        assertEquals(IntStream.rangeClosed(1, RECORDS).boxed().toList(), sizes);
        Vector<HashMap<String, ByteIterator>> limited = new Vector<>();
        assertEquals(Status.OK, db.scan("usertable", "user0", 1, Set.of("field0"), limited));
        assertEquals(List.of(Map.of("field0", "a0")), limited.stream().map(CassandraYcsbDbTest::strings).toList());

        assertEquals(Status.OK, db.delete("usertable", "user5"));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user5", null, new HashMap<>()));
        assertEquals(Status.OK, db.read("usertable", "user6", null, new HashMap<>()));
    }

    private static Map<String, ByteIterator> record(String field0, String field1) {
        Map<String, ByteIterator> values = new HashMap<>();
        values.put("field0", new StringByteIterator(field0));
        values.put("field1", new StringByteIterator(field1));
        return values;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> values) {
        Map<String, String> result = new HashMap<>();
        values.forEach((name, value) -> result.put(name, value.toString()));
        return result;
    }
}
