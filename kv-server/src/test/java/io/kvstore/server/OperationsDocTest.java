package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.ServerCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.OptionSpec;

/** docs/OPERATIONS.md against the command line, so that the operators' manual cannot drift from the code. */
class OperationsDocTest {
    /** A row of the options table: | `--name`[, `-x`] | default | meaning |. */
    private static final Pattern OPTION_ROW = Pattern.compile("^\\| `(--[a-z-]+)`[^|]*\\| ([^|]+) \\|");

    @Test
    void theOptionsTableListsExactlyTheOptionsOfTheCommandLineWithTheirDefaults() throws IOException {
        Map<String, String> documented = new TreeMap<>();
        for (String line : Files.readAllLines(doc())) {
            Matcher row = OPTION_ROW.matcher(line);
            if (row.find()) {
                assertEquals(null, documented.put(row.group(1), row.group(2).trim()), "listed twice: " + row.group(1));
            }
        }
        Map<String, String> known = new TreeMap<>();
        for (OptionSpec option : ServerCommand.options()) {
            known.put(option.longestName(), option.defaultValue());
        }
        assertEquals(known.keySet(), documented.keySet(), "options in docs/OPERATIONS.md against ServerCommand");
        for (Map.Entry<String, String> option : known.entrySet()) {
            String cell = documented.get(option.getKey());
            if (option.getValue() != null) {
                assertEquals("`" + option.getValue() + "`", cell, "default of " + option.getKey());
            } else {
                assertFalse(cell.isEmpty(), "say what " + option.getKey() + " does by default");
            }
        }
    }

    @Test
    void theExampleConfigurationFileIsValid(@TempDir Path dir) throws IOException {
        String text = Files.readString(doc());
        int start = text.indexOf("```properties\n");
        assertTrue(start >= 0, "no ```properties block in docs/OPERATIONS.md");
        start += "```properties\n".length();
        Path file = Files.writeString(dir.resolve("node-1.properties"), text.substring(start, text.indexOf("```", start)));
        KvServerConfig config = ServerCommand.parse("--config", file.toString());
        assertEquals(8081, config.port());
        assertEquals(3, config.cluster().size());
        assertEquals(9091, ServerCommand.parse("--config", file.toString(), "--port", "9091").port());
    }

    private static Path doc() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve(Path.of("docs", "OPERATIONS.md"));
            if (Files.isRegularFile(doc)) {
                return doc;
            }
        }
        throw new AssertionError("docs/OPERATIONS.md not found above " + Path.of("").toAbsolutePath());
    }
}
