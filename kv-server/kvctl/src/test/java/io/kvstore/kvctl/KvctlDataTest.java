package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** get, put, delete and scan against a real two-node cluster: text, hexadecimal keys, and binary values through files and stdin. */
@Tag("slow")
class KvctlDataTest {
    @TempDir
    static Path dir;
    private static Nodes nodes;

    @BeforeAll
    static void start() throws Exception {
        nodes = new Nodes(dir.resolve("nodes"), 2, 2);
    }

    @AfterAll
    static void stop() throws Exception {
        nodes.close();
    }

    @Test
    void aTextValuePutIsReadBackDeletedAndThenNotFound() {
        Run put = nodes.kvctl("put", "user:42", "Ada", "--ack", "2", "--from", "2");
        assertEquals(0, put.exitCode, put.toString());
        Run get = Run.kvctl("get", "user:42", "--node", nodes.url(1));
        assertEquals(0, get.exitCode, get.toString());
        assertEquals("Ada", get.stdoutText());

        assertEquals(0, nodes.kvctl("delete", "user:42").exitCode);
        Run gone = nodes.kvctl("get", "user:42");
        assertEquals(Kvctl.REFUSED, gone.exitCode, gone.toString());
        assertTrue(gone.err.contains("user:42: not found"), gone.err);
    }

    @Test
    void binaryValuesGoInFromAFileAndStdinAndComeOutByteForByte() throws Exception {
        byte[] value = new byte[100_000];
        new Random(7).nextBytes(value);
        Path in = Files.write(dir.resolve("value.bin"), value);
        assertEquals(0, nodes.kvctl("put", "--key-hex", "00ff0a", "--value-file", in.toString()).exitCode);
        Path out = dir.resolve("read.bin");
        Run get = nodes.kvctl("get", "--key-hex", "00ff0a", "--out", out.toString());
        assertEquals(0, get.exitCode, get.toString());
        assertArrayEquals(value, Files.readAllBytes(out));
        assertArrayEquals(value, nodes.kvctl("get", "--key-hex", "00ff0a").stdout, "the same bytes on stdout");

        byte[] piped = {0, 1, 2, (byte) 0xfe, (byte) 0xff, '\n', '\r'};
        Run put = Run.with(Map.of("KVCTL_NODE", nodes.url(1)), piped, "put", "piped");
        assertEquals(0, put.exitCode, put.toString());
        assertArrayEquals(piped, nodes.kvctl("get", "piped").stdout);
    }

    @Test
    void aScanListsTheRangeInKeyOrderEscapingBytesAndHonoursItsLimits() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals(0, nodes.kvctl("put", "scan:" + i, "v" + i).exitCode);
        }
        assertEquals(0, nodes.kvctl("put", "scan:b", "line\nbreak\\").exitCode);
        Run scan = nodes.kvctl("scan", "scan:", "scan;", "--ack", "2");
        assertEquals(0, scan.exitCode, scan.toString());
        assertEquals("scan:0\tv0\nscan:1\tv1\nscan:2\tv2\nscan:3\tv3\nscan:4\tv4\nscan:b\tline\\x0abreak\\\\\n", scan.out);
        assertTrue(scan.err.contains("6 entries"), scan.err);

        Run limited = nodes.kvctl("scan", "scan:", "scan;", "--limit", "2", "--keys-only");
        assertEquals("scan:0\nscan:1\n", limited.out, limited.toString());
        Run hex = nodes.kvctl("scan", "scan:4", "scan:5", "--hex");
        assertEquals("7363616e3a34\t7634\n", hex.out, hex.toString());
        Run local = nodes.kvctl("scan", "scan:", "scan;", "--scope", "node", "--keys-only");
        assertEquals(0, local.exitCode, local.toString());
        assertEquals(6, local.out.lines().count(), "replication factor 2 of 2: every node holds every key");
    }

    @Test
    void aValueWithATtlIsStoredAndReplicaCountsTheNodeRefusesAreUsageErrors() {
        assertEquals(0, nodes.kvctl("put", "ttl:1", "soon", "--ttl", "3600").exitCode);
        assertEquals("soon", new String(nodes.kvctl("get", "ttl:1").stdout, StandardCharsets.UTF_8));
        Run ttl = nodes.kvctl("put", "ttl:2", "x", "--ttl", "0");
        assertEquals(Kvctl.USAGE, ttl.exitCode, ttl.toString());
        Run ack = nodes.kvctl("get", "ttl:1", "--ack", "3", "--from", "2");
        assertEquals(Kvctl.USAGE, ack.exitCode, ack.toString());
        Run from = nodes.kvctl("get", "ttl:1", "--from", "3");
        assertEquals(Kvctl.REFUSED, from.exitCode, from.toString());
        assertTrue(from.err.contains("400"), "the node's refusal: " + from.err);
    }

    @Test
    void badInputsAreUsageErrorsNamingWhatIsWrong() {
        Run unreadable = nodes.kvctl("put", "k", "--value-file", dir.resolve("missing.bin").toString());
        assertEquals(Kvctl.USAGE, unreadable.exitCode, unreadable.toString());
        assertTrue(unreadable.err.contains("cannot read --value-file"), unreadable.err);
        Run both = nodes.kvctl("put", "k", "v", "--value-file", "x");
        assertEquals(Kvctl.USAGE, both.exitCode, both.toString());
        Run hex = nodes.kvctl("get", "--key-hex", "zz");
        assertEquals(Kvctl.USAGE, hex.exitCode, hex.toString());
        assertTrue(hex.err.contains("not hexadecimal"), hex.err);
        Run missing = nodes.kvctl("get");
        assertEquals(Kvctl.USAGE, missing.exitCode, missing.toString());
        assertTrue(missing.err.contains("Missing required parameter"), missing.err);
    }
}
