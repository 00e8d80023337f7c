package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard and alert rules under ops/ against what nodes really expose: every series a panel or a rule
 * queries must be in a scrape of a running cluster (TLS and hinted handoff on, so that every kind of metric
 * is there), or the panel would stay empty and the alert would never fire.
 */
class OpsArtifactsTest {
    /** Series Prometheus makes itself for each scrape target rather than reading them from /metrics. */
    private static final Set<String> SCRAPE_SERIES = Set.of("up", "scrape_duration_seconds", "scrape_samples_scraped");
    /** PromQL's operators and modifiers that read like identifiers. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan", "atan2");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", Pattern.CASE_INSENSITIVE);
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:$])[a-zA-Z_:][\\w:]*+(?!\\s*\\()");
    /** A Grafana variable listing a label's values: {@code label_values(selector, label)}. */
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*\\w+\\)");
    private static final Pattern RUNBOOK = Pattern.compile("runbook_url:\\s*\"?docs/OPERATIONS\\.md#([\\w-]+)");
    private static final Pattern EXPR_LINE = Pattern.compile("^(\\s*)(?:- )?expr:\\s*(.*)$");

    @TempDir
    static Path dir;
    private static TestCluster cluster;
    /** Every series name of both nodes' scrapes. */
    private static Set<String> exposed;
    private static String scrapeText;

    @BeforeAll
    static void startAClusterAndScrapeIt() throws Exception {
        TestCertificates pki = TestCertificates.shared();
        Path secret = SecurityTest.secretFile(dir, "secret", SecurityTest.SECRET);
        cluster = new TestCluster(dir, 2, b -> b.security(security -> security.tls(pki.nodeCert, pki.nodeKey)
                .tlsCa(pki.caPem).clusterSecretFile(secret)), pki.trustingClient());
        for (int i = 0; i < 5; i++) {
            assertEquals(201, cluster.put(i % 2, "id=k" + i, "v" + i));
            assertEquals(200, cluster.get((i + 1) % 2, "id=k" + i).statusCode());
        }
        assertEquals(404, cluster.get(0, "id=absent").statusCode());
        exposed = new TreeSet<>();
        StringBuilder text = new StringBuilder();
        for (int node = 0; node < 2; node++) {
            HttpResponse<byte[]> response = cluster.send(node, "GET", "/metrics", null);
            assertEquals(200, response.statusCode());
            String body = new String(response.body(), StandardCharsets.UTF_8);
            text.append(body);
            for (String key : PrometheusText.parse(body).samples().keySet()) {
                int brace = key.indexOf('{');
                exposed.add(brace < 0 ? key : key.substring(0, brace));
            }
        }
        scrapeText = text.toString();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everySeriesTheDashboardQueriesIsExposed() throws IOException {
        JsonObject dashboard = new JsonObject(Files.readString(repository().resolve("ops/grafana/kvstore.json")));
        List<String> expressions = new ArrayList<>();
        collectExpressions(dashboard.getJsonArray("panels"), expressions);
        assertTrue(expressions.size() >= 20, "the dashboard's queries: " + expressions);
        Set<String> variables = new TreeSet<>();
        for (Object variable : dashboard.getJsonObject("templating").getJsonArray("list")) {
            JsonObject object = (JsonObject) variable;
            variables.add(object.getString("name"));
            Matcher labelValues = LABEL_VALUES.matcher(object.getString("definition", ""));
            if (labelValues.matches()) {
                expressions.add(labelValues.group(1));
            }
        }
        assertEquals(new TreeMap<>(), missing(expressions), "series the dashboard queries that no node exposes");
        assertTrue(variables.containsAll(List.of("datasource", "instance")), "the dashboard's variables: " + variables);
        assertTrue(expressions.stream().allMatch(expr -> expr.contains("$instance") || expr.contains("kvstore")),
                "every query follows the node picked: " + expressions);
    }

    @Test
    void everySeriesTheAlertsQueryIsExposed() throws IOException {
        List<String> expressions = ruleExpressions(Files.readAllLines(repository().resolve("ops/prometheus/alerts.yml")));
        assertTrue(expressions.size() >= 7, "the rules' expressions: " + expressions);
        assertEquals(new TreeMap<>(), missing(expressions), "series the alert rules query that no node exposes");
    }

    @Test
    void theTlsCertificateExpiryIsExposedForTheNodeAndItsCa() {
        double now = Instant.now().getEpochSecond();
        for (String role : List.of("node", "ca")) {
            Matcher sample = Pattern.compile("kv_tls_certificate_expiry_seconds\\{role=\"" + role + "\"} (\\S+)").matcher(scrapeText);
            assertTrue(sample.find(), "no expiry of the " + role + " certificate");
            double expiry = Double.parseDouble(sample.group(1));
            // The test PKI's certificates are valid for two days.
            assertTrue(expiry > now + 86_400 && expiry < now + 3 * 86_400, role + " expires at " + expiry);
        }
    }

    @Test
    void everyRunbookLinkLeadsToASectionOfTheOperatorsManual() throws IOException {
        Set<String> sections = new TreeSet<>();
        for (String line : Files.readAllLines(repository().resolve("docs/OPERATIONS.md"))) {
            if (line.startsWith("#")) {
                sections.add(line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 -]", "")
                        .replace(' ', '-'));
            }
        }
        List<String> links = new ArrayList<>();
        Matcher link = RUNBOOK.matcher(Files.readString(repository().resolve("ops/prometheus/alerts.yml")));
        while (link.find()) {
            links.add(link.group(1));
        }
        assertTrue(links.size() >= 7, "runbook links: " + links);
        for (String anchor : links) {
            assertTrue(sections.contains(anchor), "no section #" + anchor + " in docs/OPERATIONS.md");
        }
    }

    @Test
    void everyKvstoreMetricIsInTheOperatorsManual() throws IOException {
        String manual = Files.readString(repository().resolve("docs/OPERATIONS.md"));
        Set<String> undocumented = new TreeSet<>();
        for (String name : exposed) {
            String metric = name.replaceFirst("_(bucket|count|sum|max)$", "");
            if (name.startsWith("kv_") && !manual.contains("`" + metric + "`")) {
                undocumented.add(metric);
            }
        }
        assertEquals(Set.of(), undocumented, "metrics docs/OPERATIONS.md does not list");
    }

    @Test
    void theCheckFindsASeriesNoNodeExposes() {
        assertEquals(Set.of("kv_no_such_series_total"), metricNames("sum by (instance) (rate(kv_no_such_series_total{job=\"kvstore\"}[5m]))"));
        assertEquals(Set.of("kv_no_such_series_total"), missing(List.of(
                "rate(kv_no_such_series_total[5m]) > 0 and on (instance) kv_peer_up == 1")).keySet());
        assertEquals(Set.of("vertx_http_server_response_time_seconds_bucket"), metricNames("histogram_quantile(0.99, sum by (le, route)"
                + " (rate(vertx_http_server_response_time_seconds_bucket{instance=~\"$instance\", route=\"/v0/entity\"}[$__rate_interval])))"));
        assertEquals(Set.of("kv_disk_free_bytes", "up"), metricNames("predict_linear(kv_disk_free_bytes[6h], 24 * 3600) < 0"
                + " unless on (instance) up == 0 or count_values without (instance) (\"fp\", kv_disk_free_bytes offset 1h) > 1e9"));
        assertEquals(List.of("a > 0", "sum(b)\n  / sum(c)\n", "d"), ruleExpressions(List.of(
                "  - alert: A", "    expr: a > 0", "  - alert: B", "    expr: |", "      sum(b)", "        / sum(c)", "",
                "    for: 5m", "  - expr: d")));
    }

    /** The series among {@code expressions}' that no node exposes, each with the expression naming it. */
    private static TreeMap<String, String> missing(List<String> expressions) {
        TreeMap<String, String> missing = new TreeMap<>();
        for (String expression : expressions) {
            for (String name : metricNames(expression)) {
                if (!exposed.contains(name) && !SCRAPE_SERIES.contains(name)) {
                    missing.put(name, expression);
                }
            }
        }
        return missing;
    }

    /**
     * The metric names a PromQL expression selects: identifiers that are not functions (followed by a
     * parenthesis), keywords, label names (in braces or grouping lists), strings, durations or Grafana variables.
     */
    static Set<String> metricNames(String expression) {
        String text = STRING.matcher(expression).replaceAll(" ");
        text = text.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ");
        text = GROUPING.matcher(text).replaceAll(" ");
        text = text.replaceAll("\\$\\{?\\w+(?::\\w+)?}?", " ");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(text);
        while (identifier.find()) {
            String name = identifier.group();
            if (!KEYWORDS.contains(name.toLowerCase(Locale.ROOT))) {
                names.add(name);
            }
        }
        return names;
    }

    /** The {@code expr} of every panel target, wherever it is nested (rows hold panels too). */
    private static void collectExpressions(Object node, List<String> into) {
        if (node instanceof JsonObject object) {
            for (String field : object.fieldNames()) {
                Object value = object.getValue(field);
                if (field.equals("expr") && value instanceof String expr) {
                    into.add(expr);
                } else {
                    collectExpressions(value, into);
                }
            }
        } else if (node instanceof JsonArray array) {
            for (Object value : array) {
                collectExpressions(value, into);
            }
        }
    }

    /**
     * The {@code expr} values of a rule file: plain scalars on their line, or literal and folded blocks, the
     * lines indented deeper than the key. A file this does not read fails promtool's checks too.
     */
    static List<String> ruleExpressions(List<String> lines) {
        List<String> expressions = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher expr = EXPR_LINE.matcher(lines.get(i));
            if (!expr.matches()) {
                continue;
            }
            String value = expr.group(2).trim();
            if (!value.startsWith("|") && !value.startsWith(">")) {
                expressions.add(value);
                continue;
            }
            int keyIndent = expr.group(1).length() + (lines.get(i).stripLeading().startsWith("- ") ? 2 : 0);
            StringBuilder block = new StringBuilder();
            int blockIndent = -1;
            for (i++; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.isBlank()) {
                    continue;
                }
                int indent = line.length() - line.stripLeading().length();
                if (indent <= keyIndent) {
                    break;
                }
                blockIndent = blockIndent < 0 ? indent : blockIndent;
                block.append(line.substring(Math.min(blockIndent, indent))).append('\n');
            }
            i--;
            expressions.add(block.toString());
        }
        return expressions;
    }

    static Path repository() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            if (Files.isDirectory(at.resolve("ops")) && Files.isRegularFile(at.resolve("docs/OPERATIONS.md"))) {
                return at;
            }
        }
        throw new IllegalStateException("no ops/ above " + Path.of("").toAbsolutePath());
    }
}
