package io.kvstore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.client.TlsEngine;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

class LoadOptionsTest {

    @Test
    void parsesEveryOption() {
        LoadOptions o = LoadOptions.parse("--targets", "http://127.0.0.1:9001,http://127.0.0.1:9002",
                "--ops", "put=1,get=3", "--keys", "5_000_000", "--distribution", "zipfian", "--value-size", "0",
                "--ack", "2", "--from", "3", "--connections", "8", "--threads", "2", "--duration", "3",
                "--warmup", "0", "--rate", "1500.5", "--seed", "42", "--timeout", "500", "--transport", "native");
        assertEquals(2, o.targets.size());
        assertEquals(5_000_000, o.keys);
        assertEquals("&ack=2&from=3", o.replicationQuery());
        assertTrue(o.openLoop());
        assertEquals(1500.5, o.rate);
        assertEquals(42, o.seed);
        assertTrue(o.nativeTransport());
        assertFalse(LoadOptions.parse().nativeTransport(), "closed loop: java.nio by default");
        assertTrue(LoadOptions.parse("--rate", "10").nativeTransport(), "open loop: native by default");
        assertFalse(LoadOptions.parse("--rate", "10", "--transport", "nio").nativeTransport());
    }

    @Test
    void tlsReadsTheTargetsAsHttpsAndTakesATrustedCa() {
        LoadOptions o = LoadOptions.parse("--targets", "http://127.0.0.1:9001", "--tls", "--tls-ca", "ca.pem");
        assertEquals("https", o.targets.get(0).getScheme());
        assertTrue(o.httpClientOptions().isSsl());
        assertTrue(LoadOptions.parse("--targets", "https://127.0.0.1:9001").tls, "https targets imply TLS");
        assertThrows(ParameterException.class, () -> LoadOptions.parse("--tls-ca", "ca.pem"));
        assertEquals(TlsEngine.OPENSSL, o.tlsEngine, "the server's default engine");
        assertTrue(o.httpClientOptions().getSslEngineOptions() instanceof OpenSSLEngineOptions);
        LoadOptions jdk = LoadOptions.parse("--tls", "--tls-engine", "JDK");
        assertEquals(TlsEngine.JDK, jdk.tlsEngine);
        assertTrue(jdk.httpClientOptions().getSslEngineOptions() instanceof JdkSSLEngineOptions);
        assertMessage("Invalid value for option '--tls-engine': unknown TLS engine 'gnutls' (expected jdk or openssl)",
                "--tls-engine", "gnutls");
    }

    @Test
    void aPreloadOfNKeysAndARunOverNKeysNameTheSameKeys() {
        for (String n : new String[] {"1", "10", "1000", "200000", "5000000"}) {
            assertEquals(LoadOptions.parse("--keys", n).keyDigits(), LoadOptions.parse("--preload", n).keyDigits(), n);
        }
        assertEquals(3, LoadOptions.parse("--preload", "1000").keyDigits(), "not widened by --keys' default");
        assertEquals(7, LoadOptions.parse("--keys", "5000000").keyDigits(), "the suite's key names: key0000042");
        assertEquals(1, LoadOptions.parse("--keys", "1").keyDigits());
    }

    @Test
    void rejectsBadInputWithTheOffendingValue() {
        assertMessage("Unknown options: '--nope', '1'", "--nope", "1");
        assertMessage("Missing required parameter for option '--keys' (N)", "--keys");
        assertMessage("Invalid value for option '--keys': 'ten' is not an integer", "--keys", "ten");
        assertMessage("--keys must be >= 1, got 0", "--keys", "0");
        assertMessage("--rate must be > 0, got -5.0", "--rate", "-5");
        assertMessage("--routing: unknown routing 'nearest' (expected replica or targets)", "--routing", "nearest");
        assertMessage("--ack/--from: from must be >= max(1, ack), got 2 with ack 3", "--from", "2", "--ack", "3");
        assertMessage("--targets must look like http://host:port or https://host:port, got 'localhost'", "--targets", "localhost");
        assertMessage("--distribution: unknown key distribution 'gauss' (expected uniform or zipfian)", "--distribution", "gauss");
        assertMessage("--ops: unknown operation 'post' in 'post' (expected put, get, delete, range)", "--ops", "post");
        assertMessage("--range-keys must be >= 1, got 0", "--range-keys", "0");
        assertMessage("--ops: operation mix 'put=0' has no positive weight", "--ops", "put=0");
        assertMessage("Invalid value for option '--transport': expected one of [NATIVE, NIO] (case-insensitive) but was 'epoll'",
                "--transport", "epoll");
        assertMessage("--connections (1) must be at least threads x targets (2)", "--connections", "1", "--threads", "2");
        assertMessage("--interval must be >= 1, got 0", "--interval", "0");
        assertMessage("--interval-log needs a timed run, not --preload", "--interval-log", "w.txt", "--preload", "10");
    }

    @Test
    void helpIsGeneratedWithTheDefaults() {
        assertNull(LoadOptions.parse("--help"));
        String usage = LoadOptions.commandLine(new LoadOptions()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertTrue(usage.contains("--keys=N") && usage.contains("Default: 1000000"), usage);
    }

    @Test
    void aUsageErrorFromTheRunIsExitStatus2() {
        StringWriter err = new StringWriter();
        CommandLine commandLine = LoadOptions.commandLine(new LoadOptions());
        commandLine.setErr(new PrintWriter(err));
        assertEquals(2, commandLine.execute("--connections", "1", "--threads", "2"));
        assertTrue(err.toString().startsWith("--connections (1) must be at least threads x targets (2)"), err.toString());
    }

    @Test
    void operationMixFollowsItsWeights() {
        OperationMix mix = OperationMix.parse("put=1,get=3");
        SplittableRandom random = new SplittableRandom(7);
        int puts = 0;
        for (int i = 0; i < 100_000; i++) {
            if (mix.next(random) == OperationMix.Op.PUT) {
                puts++;
            }
        }
        assertEquals(25_000, puts, 1_000);
        assertTrue(OperationMix.parse("get").hasOnly(OperationMix.Op.GET));
        assertFalse(OperationMix.parse("put=1,get=1,delete=1").hasRanges());
    }

    @Test
    void rangesTakeTheirShareOfTheMix() {
        OperationMix mix = OperationMix.parse("get=3,range=1");
        assertTrue(mix.hasRanges());
        SplittableRandom random = new SplittableRandom(13);
        int ranges = 0;
        for (int i = 0; i < 100_000; i++) {
            OperationMix.Op op = mix.next(random);
            assertTrue(op == OperationMix.Op.GET || op == OperationMix.Op.RANGE, op.toString());
            ranges += op == OperationMix.Op.RANGE ? 1 : 0;
        }
        assertEquals(25_000, ranges, 1_000);
        assertTrue(OperationMix.parse("range").hasOnly(OperationMix.Op.RANGE));
        assertFalse(OperationMix.parse("delete").hasOnly(OperationMix.Op.RANGE));
        assertEquals(100, LoadOptions.parse("--ops", "range").rangeKeys, "the default");
    }

    @Test
    void zipfianIsSkewedButCoversTheKeySpace() {
        long keys = 10_000;
        KeyChooser zipf = KeyChooser.of("zipfian", keys);
        SplittableRandom random = new SplittableRandom(11);
        int[] hits = new int[(int) keys];
        for (int i = 0; i < 1_000_000; i++) {
            long k = zipf.next(random);
            assertTrue(k >= 0 && k < keys, "key index out of range: " + k);
            hits[(int) k]++;
        }
        int max = 0;
        int touched = 0;
        for (int h : hits) {
            max = Math.max(max, h);
            touched += h > 0 ? 1 : 0;
        }
        // theta 0.99 over 10k keys: the hottest key gets roughly 1/zeta(10k) ~ 10% of requests.
        assertTrue(max > 50_000 && max < 150_000, "hottest key share off: " + max);
        assertTrue(touched > keys / 2, "zipfian should still reach most keys, reached " + touched);
    }

    private static void assertMessage(String expected, String... args) {
        ParameterException e = assertThrows(ParameterException.class, () -> LoadOptions.parse(args));
        assertEquals(expected, e.getMessage());
    }
}
