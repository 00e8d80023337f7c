package io.kvstore.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the nodes of this JVM log while it is open: slf4j-simple (the server's binding) writes to
 * whatever {@code System.out} is at each line, so teeing it catches every logger; {@code System.err}
 * too, for stack traces printed by uncaught exception handlers. Test classes run one at a time.
 */
final class LogCapture implements AutoCloseable {
    /** slf4j-simple's layout: date, [thread], level, logger - message. */
    private static final Pattern RECORD = Pattern.compile("^\\S+ \\[[^\\]]*\\] ([A-Z]+) ");

    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private LogCapture() {
        System.setOut(tee(out));
        System.setErr(tee(err));
    }

    static LogCapture start() {
        return new LogCapture();
    }

    /**
     * The records logged at WARN or ERROR, each with the lines that followed it (a stack trace), and
     * any output that is no log record (an exception printed to stderr).
     */
    List<String> warningsAndErrors() {
        String text;
        synchronized (captured) {
            text = captured.toString(StandardCharsets.UTF_8);
        }
        List<String> records = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (RECORD.matcher(line).find() || records.isEmpty()) {
                records.add(line);
            } else {
                records.set(records.size() - 1, records.get(records.size() - 1) + "\n" + line);
            }
        }
        List<String> found = new ArrayList<>();
        for (String record : records) {
            Matcher header = RECORD.matcher(record);
            if (header.find() ? !header.group(1).equals("INFO") && !header.group(1).equals("DEBUG")
                    && !header.group(1).equals("TRACE") : !record.isBlank()) {
                found.add(record);
            }
        }
        return found;
    }

    private PrintStream tee(PrintStream original) {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (captured) {
                    captured.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                synchronized (captured) {
                    captured.write(b, off, len);
                }
            }
        }, true, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
    }
}
