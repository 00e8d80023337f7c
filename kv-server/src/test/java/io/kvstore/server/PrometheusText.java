package io.kvstore.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A parsed Prometheus text exposition: each sample by its name and labels, written
 * {@code name{a="x",b="y"}} with the labels sorted, or just {@code name} without labels. Strict: a
 * line that is not a comment, blank or a sample fails the parse, so a malformed exposition fails its test.
 */
final class PrometheusText {
    private final Map<String, Double> samples = new TreeMap<>();

    private PrometheusText() {
    }

    static PrometheusText parse(String text) {
        PrometheusText parsed = new PrometheusText();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = brace < 0 ? line.indexOf(' ') : line.indexOf(' ', line.lastIndexOf('}'));
            if (space < 0) {
                throw new IllegalArgumentException("not a sample: " + line);
            }
            String name = line.substring(0, brace < 0 ? space : brace);
            String key = name;
            if (brace >= 0) {
                String labels = line.substring(brace + 1, line.lastIndexOf('}'));
                TreeSet<String> sorted = new TreeSet<>();
                for (String label : labels.split(",(?=[a-zA-Z_]+=\")")) {
                    if (!label.isEmpty()) {
                        sorted.add(label);
                    }
                }
                key = name + "{" + String.join(",", sorted) + "}";
            }
            String value = line.substring(space + 1).trim().split(" ")[0];
            if (parsed.samples.put(key, number(value)) != null) {
                throw new IllegalArgumentException("sample twice: " + key);
            }
        }
        return parsed;
    }

    private static double number(String value) {
        switch (value) {
            case "NaN": return Double.NaN;
            case "+Inf": return Double.POSITIVE_INFINITY;
            case "-Inf": return Double.NEGATIVE_INFINITY;
            default: return Double.parseDouble(value);
        }
    }

    /** The sample {@code key} ({@code name{labels}} with labels sorted), 0 if absent (a counter not yet moved). */
    double value(String key) {
        Double value = samples.get(key);
        return value == null ? 0 : value;
    }

    boolean has(String key) {
        return samples.containsKey(key);
    }

    /** The sum of every sample of {@code name} whose labels include all of {@code labels}. */
    double sum(String name, String... labels) {
        double total = 0;
        for (Map.Entry<String, Double> sample : samples.entrySet()) {
            String key = sample.getKey();
            if (!key.equals(name) && !key.startsWith(name + "{")) {
                continue;
            }
            boolean matches = true;
            for (String label : labels) {
                matches &= key.contains(label);
            }
            if (matches) {
                total += sample.getValue();
            }
        }
        return total;
    }

    Map<String, Double> samples() {
        return samples;
    }
}
