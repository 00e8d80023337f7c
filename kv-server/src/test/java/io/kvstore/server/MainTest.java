package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.SyncPolicy;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void defaultsServeOneNodeOnPort8080WithTheLsmInData() {
        KvServerConfig c = Main.parse();
        assertEquals(8080, c.port());
        assertEquals("http://localhost:8080", c.self());
        assertEquals(List.of("http://localhost:8080"), c.cluster());
        assertEquals(Path.of("data"), c.dataDirectory());
        assertEquals(Engine.LSM, c.engine());
        assertEquals("ring", c.partitioner());
        assertEquals(true, c.nativeTransport());
        assertEquals(DaoOptions.DEFAULT_BACKGROUND_PRIORITY, c.backgroundPriority());
    }

    @Test
    void everyContractFlagIsUnderstood() {
        KvServerConfig c = Main.parse("--port", "9001", "--data-dir", "/tmp/x",
                "--cluster", "http://h1:9001, http://h2:9002", "--self", "http://h1:9001",
                "--partitioner", "maglev", "--engine", "rocksdb", "--sync", "group", "--max-in-flight", "10");
        assertEquals(9001, c.port());
        assertEquals(List.of("http://h1:9001", "http://h2:9002"), c.cluster());
        assertEquals("maglev", c.partitioner());
        assertEquals(Engine.ROCKSDB, c.engine());
        assertEquals(SyncPolicy.GROUP_COMMIT, c.syncPolicy());
        assertEquals(10, c.maxInFlight());
        assertEquals(false, Main.parse("--transport", "nio").nativeTransport());
        assertEquals(true, Main.parse("--transport", "NATIVE").nativeTransport());
        assertEquals(BackgroundPriority.NORMAL, Main.parse("--background-priority", "0").backgroundPriority());
        assertEquals(BackgroundPriority.nice(19), Main.parse("--background-priority", "19").backgroundPriority());
        assertEquals(BackgroundPriority.IDLE, Main.parse("--background-priority", "idle").backgroundPriority());
        assertEquals(java.time.Duration.ofSeconds(7), Main.parse("--request-timeout-s", "7").requestTimeout());
        assertEquals(java.time.Duration.ofSeconds(60), Main.parse().requestTimeout());
        assertNull(Main.parse("--help"));
    }

    @Test
    void badFlagsAreClearErrors() {
        assertMessage("unknown option --prot", "--prot", "1");
        assertMessage("missing value for --port", "--port");
        assertMessage("--port needs a number, got 'x'", "--port", "x");
        assertMessage("port must be in [0, 65535], got 70000", "--port", "70000");
        assertMessage("unknown partitioner 'hash'; expected one of [ring, rendezvous, modn, jump, maglev]",
                "--partitioner", "hash");
        assertMessage("self http://h3:1 is not in the cluster [http://h1:1, http://h2:1]",
                "--cluster", "http://h1:1,http://h2:1", "--self", "http://h3:1");
        assertMessage("duplicate node in cluster [http://h1:1, http://h1:1]", "--cluster", "http://h1:1,http://h1:1",
                "--self", "http://h1:1");
        assertMessage("node URL must look like http://host:port, got 'h1:1'", "--cluster", "h1:1", "--self", "h1:1");
        assertMessage("--sync must be none, group or every, got 'always'", "--sync", "always");
        assertMessage("--transport must be native or nio, got 'epol'", "--transport", "epol");
        assertMessage("background priority must be idle or a nice value 0-19, got '20'", "--background-priority", "20");
        assertMessage("background priority must be idle or a nice value 0-19, got '-5'", "--background-priority", "-5");
        assertMessage("background priority must be idle or a nice value 0-19, got 'IDLE'", "--background-priority", "IDLE");
        assertMessage("max key bytes must be in [1, 8192], got 16000", "--max-key-bytes", "16000");
        assertMessage("max key bytes must be in [1, 8192], got 0", "--max-key-bytes", "0");
        assertThrows(IllegalArgumentException.class, () -> Main.parse("--engine", "leveldb"));
    }

    private static void assertMessage(String message, String... args) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> Main.parse(args)).getMessage());
    }
}
