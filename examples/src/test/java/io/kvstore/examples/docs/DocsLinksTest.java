package io.kvstore.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README and every Markdown file under docs/ hold no dangling reference: each relative link and
 * image names a file of the repository, each {@code #anchor} a heading of its target (GitHub's anchor
 * rules), each test class named exists, and no document speaks of how the work was organised or of
 * files outside the repository.
 */
class DocsLinksTest {
    /** Words and shapes that belong to a work log, not to a product's documentation. */
    private static final List<Pattern> FORBIDDEN = List.of(
            Pattern.compile("(?i)\\bsessions?\\b"),
            Pattern.compile("(?i)\\bhelpers?\\b"),
            Pattern.compile("(?i)\\b(?:issue|ticket|tracker|pull request|PR)\\s*#?\\d+"),
            Pattern.compile("(?<![\\w&#/])#\\d+\\b"),
            Pattern.compile("(?<![\\w.-])/tmp\\b"));

    /** A test class named in prose, such as {@code RangeMemoryTest} or {@code LsmDaoTest.someCase}. */
    private static final Pattern TEST_CLASS = Pattern.compile("\\b([A-Z][A-Za-z0-9]*Test)\\b");

    @Test
    void readmeAndDocsHaveNoDanglingReference() throws IOException {
        Path root = repositoryRoot();
        List<String> problems = check(root, documents(root));
        assertTrue(problems.isEmpty(), problems.size() + " problem(s):\n" + String.join("\n", problems));
    }

    @Test
    void theReadmeLinksEveryDocument() throws IOException {
        Path root = repositoryRoot();
        List<String> targets = read(root.resolve("README.md")).linkTargets();
        for (String doc : List.of("docs/DESIGN.md", "docs/PROTOCOL.md", "docs/OPERATIONS.md", "docs/FORMAT.md",
                "docs/TESTING.md", "docs/BENCHMARKS.md")) {
            assertTrue(targets.stream().anyMatch(t -> t.equals(doc) || t.startsWith(doc + "#")), "README does not link " + doc);
        }
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertEquals("single-keys-v0entity", MarkdownDocument.slug("Single keys: /v0/entity"));
        assertEquals("write-ahead-log-nnnnnnwal", MarkdownDocument.slug("Write-ahead log (`NNNNNN.wal`)"));
        assertEquals("http-a-node-and-a-cluster-against-the-ceiling",
                MarkdownDocument.slug("HTTP: a node and a cluster against the ceiling"));
        assertEquals("footer-last-56-bytes", MarkdownDocument.slug("Footer (last 56 bytes)"));
        assertEquals("the-internal-route", MarkdownDocument.slug("The [internal](x.md) route"));
        MarkdownDocument twice = new MarkdownDocument("# Notes\n## Notes\n```\n# not a heading\n```\n## Notes\n");
        assertEquals(Set.of("notes", "notes-1", "notes-2"), twice.anchors());
    }

    @Test
    void theCheckFindsEachKindOfDanglingReference(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/OTHER.md"), "# Other\n## A section\n");
        // A README with one of each problem.
        // Its line of work-log words is put together here, so that no file of the repository holds them.
        String workLog = "as the sess" + "ion bef" + "ore found (see iss" + "ue 12, #34, /" + "tmp/x)\n";
        try (var in = DocsLinksTest.class.getResourceAsStream("/docs-check/README.md")) {
            String sample = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Files.writeString(root.resolve("README.md"), sample + workLog);
        }
        List<String> problems = check(root, documents(root));
        String all = String.join("\n", problems);
        for (String expected : List.of("docs/GONE.md", "#no-such", "#nowhere", "docs/missing.png", "docs/ALSO-GONE.md",
                "SurelyDeletedTest", "session", "issue " + 12, "#34", "/" + "tmp")) {
            assertTrue(all.contains(expected), "not reported: " + expected + "\n" + all);
        }
        assertTrue(!all.contains("NOT-CHECKED") && !all.contains("OTHER.md#a-section") && !all.contains("#title")
                && !all.contains("example.com"), all);
        assertEquals(10, problems.size(), all);
    }

    /** The README and every .md file under docs/, as paths relative to {@code root}. */
    private static List<Path> documents(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        Path dir = root.resolve("docs");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                docs.addAll(files.filter(f -> f.toString().endsWith(".md")).sorted().collect(Collectors.toList()));
            }
        }
        return docs;
    }

    private static List<String> check(Path root, List<Path> docs) throws IOException {
        Set<String> testClasses = testClassNames(root);
        List<String> problems = new ArrayList<>();
        for (Path doc : docs) {
            String name = root.relativize(doc).toString().replace('\\', '/');
            MarkdownDocument markdown = read(doc);
            for (String target : markdown.linkTargets()) {
                String problem = checkLink(root, doc, markdown, target);
                if (problem != null) {
                    problems.add(name + ": " + problem);
                }
            }
            for (Pattern forbidden : FORBIDDEN) {
                Matcher m = forbidden.matcher(markdown.text());
                while (m.find()) {
                    problems.add(name + ": speaks of '" + m.group() + "'");
                }
            }
            Matcher test = TEST_CLASS.matcher(markdown.outsideFences());
            while (test.find()) {
                if (!testClasses.contains(test.group(1))) {
                    problems.add(name + ": names " + test.group(1) + ", which no module's tests hold");
                }
            }
        }
        return problems;
    }

    /** What is wrong with one link of {@code doc}, or null if nothing. */
    private static String checkLink(Path root, Path doc, MarkdownDocument markdown, String target) throws IOException {
        if (target.isEmpty()) {
            return "empty link target";
        }
        if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
            return null; // https:, mailto: and other absolute URLs are not checked
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        MarkdownDocument anchored = markdown;
        if (!file.isEmpty()) {
            Path resolved = doc.getParent().resolve(file).normalize();
            if (!resolved.startsWith(root)) {
                return "link " + target + " leaves the repository";
            }
            if (!Files.exists(resolved)) {
                return "link to a missing file: " + target;
            }
            anchored = anchor != null && file.endsWith(".md") ? read(resolved) : null;
        }
        if (anchor != null && anchored != null && !anchored.anchors().contains(anchor)) {
            return "link " + target + " names no heading (#" + anchor + ")";
        }
        return null;
    }

    /** Simple names of the classes in every module's src/test/java, a nested module's (kv-server/kv-client) included. */
    private static Set<String> testClassNames(Path root) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> modules = Files.walk(root, 2)) {
            for (Path sources : modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory).collect(Collectors.toList())) {
                try (Stream<Path> files = Files.walk(sources)) {
                    files.filter(f -> f.toString().endsWith(".java"))
                            .forEach(f -> names.add(f.getFileName().toString().replace(".java", "")));
                }
            }
        }
        return names;
    }

    private static MarkdownDocument read(Path file) throws IOException {
        return new MarkdownDocument(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** The repository root: the parent of this module's directory, where the build runs the tests. */
    private static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertTrue(Files.isRegularFile(root.resolve("README.md")) && Files.isDirectory(root.resolve("docs")),
                "expected the README and docs/ in " + root);
        return root;
    }
}
