package io.kvstore.kvctl;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * One run of kvctl in the test's JVM, as a shell would run it: arguments, environment and stdin in;
 * exit code, the text of stdout and stderr, and the raw bytes written to stdout (values) out.
 */
final class Run {
    final int exitCode;
    final String out;
    final String err;
    final byte[] stdout;

    private Run(int exitCode, String out, String err, byte[] stdout) {
        this.exitCode = exitCode;
        this.out = out;
        this.err = err;
        this.stdout = stdout;
    }

    static Run kvctl(String... args) {
        return with(Map.of(), new byte[0], args);
    }

    static Run with(Map<String, String> environment, byte[] stdin, String... args) {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        Kvctl kvctl = new Kvctl(new HashMap<>(environment), new ByteArrayInputStream(stdin), raw, false);
        CommandLine line = Kvctl.commandLine(kvctl);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        int code = line.execute(args);
        return new Run(code, out.toString(), err.toString(), raw.toByteArray());
    }

    String stdoutText() {
        return new String(stdout, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
