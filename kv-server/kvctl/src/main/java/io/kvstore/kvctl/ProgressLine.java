package io.kvstore.kvctl;

import java.io.PrintWriter;

/**
 * One line of progress on stderr, so that stdout keeps only results: on a terminal it is redrawn in
 * place; elsewhere (a log, a pipe) each new text is a line of its own, and text equal to the last one
 * is not printed again.
 */
final class ProgressLine {
    private final PrintWriter err;
    private final boolean terminal;
    private String last = "";

    ProgressLine(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    void show(String text) {
        if (terminal) {
            err.print("\r" + text + " ".repeat(Math.max(0, last.length() - text.length())));
            err.flush();
        } else if (!text.equals(last)) {
            err.println(text);
            err.flush();
        }
        last = text;
    }

    /** Ends the line on a terminal, so that what follows starts on a line of its own. */
    void end() {
        if (terminal && !last.isEmpty()) {
            err.println();
            err.flush();
        }
        last = "";
    }
}
