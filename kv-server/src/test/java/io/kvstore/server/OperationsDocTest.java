package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/OPERATIONS.md lists every option of the server's command line. */
class OperationsDocTest {
    @Test
    void everyOptionIsListedInTheOperationsGuide() throws Exception {
        Path doc = Path.of("..", "docs", "OPERATIONS.md");
        String text = Files.readString(doc);
        for (var option : ServerCommand.options()) {
            String name = option.longestName();
            if (!name.equals("--help")) {
                assertTrue(text.contains("`" + name + " ") || text.contains("`" + name + "`"),
                        name + " is missing from " + doc.toAbsolutePath().normalize());
            }
        }
    }
}
