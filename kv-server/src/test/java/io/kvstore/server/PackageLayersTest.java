package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's packages are layers: each imports only from the layers before it in {@link #LAYERS}
 * (and from kv-client, kv-cluster, kv-placement and kv-core), never from one after it, so that a wire
 * constant or a codec never pulls in the handlers that use it. Read from the sources: every import and
 * every fully qualified name outside comments. That the client never uses the server needs no test: kv-client
 * is a module kv-server depends on, so it cannot see the server's classes.
 */
class PackageLayersTest {
    /** Lowest first; the last is {@code io.kvstore.server} itself, the node's assembly. */
    static final List<String> LAYERS = List.of("wire", "security", "config", "internode", "metrics", "http", "membership", "");
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern SERVER_NAME = Pattern.compile("\\bio\\.kvstore\\.server((?:\\.[a-z]\\w*)*)\\.[A-Z]");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    @Test
    void everyServerPackageIsALayer() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (Source source : sources("io/kvstore/server")) {
            if (layer(source.pkg) < 0) {
                unknown.add(source.file + " is in " + source.pkg);
            }
        }
        assertEquals(List.of(), unknown, "packages missing from the layers " + LAYERS);
    }

    @Test
    void noLayerImportsFromALayerAboveIt() throws IOException {
        List<String> upward = new ArrayList<>();
        for (Source source : sources("io/kvstore/server")) {
            int own = layer(source.pkg);
            Matcher name = SERVER_NAME.matcher(source.code);
            while (name.find()) {
                String target = "io.kvstore.server" + name.group(1);
                if (layer(target) > own) {
                    upward.add(source.file + " (" + source.pkg + ") uses " + target);
                }
            }
        }
        assertEquals(List.of(), upward, "imports from a higher layer; the order is " + LAYERS);
    }

    @Test
    void theCheckSeesAnUpwardImport() {
        String code = strip("package io.kvstore.server.wire;\nimport io.kvstore.server.http.BodyReader;\n");
        Matcher name = SERVER_NAME.matcher(code);
        assertTrue(name.find());
        assertTrue(layer("io.kvstore.server" + name.group(1)) > layer("io.kvstore.server.wire"));
    }

    /** The layer's index in {@link #LAYERS}, or -1. */
    private static int layer(String pkg) {
        if (pkg.equals("io.kvstore.server")) {
            return LAYERS.size() - 1;
        }
        if (!pkg.startsWith("io.kvstore.server.")) {
            return -1;
        }
        String first = pkg.substring("io.kvstore.server.".length()).split("\\.")[0];
        int index = LAYERS.indexOf(first);
        return first.isEmpty() ? -1 : index;
    }

    private record Source(Path file, String pkg, String code) {
    }

    private static List<Source> sources(String directory) throws IOException {
        List<Source> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES.resolve(directory))) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String text = Files.readString(file, StandardCharsets.UTF_8);
                Matcher pkg = PACKAGE.matcher(text);
                assertTrue(pkg.find(), file + " has a package declaration");
                sources.add(new Source(SOURCES.relativize(file), pkg.group(1), strip(text)));
            }
        }
        return sources;
    }

    /** The code without comments, so that a Javadoc link to a higher layer is not a use. */
    private static String strip(String text) {
        return COMMENT.matcher(text).replaceAll(" ");
    }
}
