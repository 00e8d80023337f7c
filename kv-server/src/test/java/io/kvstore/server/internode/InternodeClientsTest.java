package io.kvstore.server.internode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every client the node uses to reach its peers comes from {@link InternodeClients}, so that none of
 * them skips TLS or the signature: no other server source creates one.
 */
class InternodeClientsTest {
    /** Calls that make a client, except through {@code InternodeClients.}. */
    private static final Pattern CREATOR = Pattern.compile(
            "(?<!InternodeClients)\\.(createHttpClient|createNetClient|httpClientBuilder)\\(|WebClient\\.(create|wrap)\\(");

    @Test
    void noServerCodeButInternodeClientsCreatesAClient() throws IOException {
        Path sources = Path.of("src", "main", "java", "io", "kvstore", "server");
        assertTrue(Files.isDirectory(sources), "run from the kv-server module: " + sources.toAbsolutePath());
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                if (file.getFileName().toString().equals("InternodeClients.java")) {
                    continue;
                }
                Matcher call = CREATOR.matcher(Files.readString(file));
                while (call.find()) {
                    offenders.add(file.getFileName() + " calls " + call.group());
                }
            }
        }
        assertEquals(List.of(), offenders, "create internode clients with InternodeClients");
    }
}
