package io.kvstore.examples.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the link check needs of one Markdown file: its links and images, the anchors its headings
 * get on GitHub, and its prose (the text outside fenced code blocks and code spans).
 */
final class MarkdownDocument {
    /** {@code [text](target)} and {@code ![alt](target)}; the text may span lines and hold one level of brackets. */
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^)\\s]*)(?:\\s+\"[^\"]*\")?\\s*\\)");
    /** {@code [label]: target} on a line of its own. */
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*(\\S+)");
    private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~)");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);
    /** What GitHub removes from a heading's text to make its anchor: all but letters, marks, digits, connectors, spaces and hyphens. */
    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    private final String text;
    private final String outsideFences;
    private final String prose;
    private final List<String> headings = new ArrayList<>();

    MarkdownDocument(String text) {
        this.text = text;
        StringBuilder outside = new StringBuilder();
        boolean inFence = false;
        String fence = null;
        for (String line : text.split("\n", -1)) {
            Matcher opening = FENCE.matcher(line);
            if (inFence) {
                if (opening.find() && opening.group(1).equals(fence)) {
                    inFence = false;
                }
                outside.append('\n');
                continue;
            }
            if (opening.find()) {
                inFence = true;
                fence = opening.group(1);
                outside.append('\n');
                continue;
            }
            Matcher heading = ATX_HEADING.matcher(line);
            if (heading.matches()) {
                headings.add(heading.group(2));
            }
            outside.append(line).append('\n');
        }
        this.outsideFences = outside.toString();
        this.prose = CODE_SPAN.matcher(outsideFences).replaceAll(match -> " ".repeat(match.group().length()));
    }

    /** The whole text, code included. */
    String text() {
        return text;
    }

    /** The text with fenced code blocks blanked out (code spans kept). */
    String outsideFences() {
        return outsideFences;
    }

    /** The text with fenced code blocks and code spans blanked out. */
    String prose() {
        return prose;
    }

    /** Every link and image target outside code, in order of appearance. */
    List<String> linkTargets() {
        List<String> targets = new ArrayList<>();
        Matcher inline = INLINE_LINK.matcher(prose);
        while (inline.find()) {
            String target = inline.group(1);
            if (target.startsWith("<") && target.endsWith(">")) {
                target = target.substring(1, target.length() - 1);
            }
            targets.add(target);
        }
        Matcher reference = REFERENCE_DEFINITION.matcher(prose);
        while (reference.find()) {
            targets.add(reference.group(1));
        }
        return targets;
    }

    /** The anchors GitHub gives the headings: duplicates get {@code -1}, {@code -2}, ... in order. */
    Set<String> anchors() {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String heading : headings) {
            String slug = slug(heading);
            int count = seen.merge(slug, 1, Integer::sum);
            anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
        }
        return anchors;
    }

    /**
     * GitHub's anchor for a heading: the rendered text (code spans, links and emphasis markers
     * reduced to their text) in lower case, punctuation removed, each space a hyphen.
     */
    static String slug(String heading) {
        String rendered = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replace("*", "");
        String lower = rendered.toLowerCase(Locale.ROOT);
        return NOT_IN_SLUG.matcher(lower).replaceAll("").replace(' ', '-');
    }
}
