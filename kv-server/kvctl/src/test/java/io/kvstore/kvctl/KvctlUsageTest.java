package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What kvctl says without a node to talk to: help, completion, and the exit codes of usage errors and of no answer. */
class KvctlUsageTest {
    @TempDir
    Path dir;

    @Test
    void helpListsEveryCommandAndTheExitCodes() {
        Run help = Run.kvctl("--help");
        assertEquals(0, help.exitCode, help.toString());
        for (String command : new String[] {"status", "ring", "cluster", "changes", "decommission", "remove", "cancel",
            "repair", "cleanup", "scrub", "get", "put", "delete", "scan", "completion"}) {
            assertTrue(help.out.contains("  " + command + " "), command + " in\n" + help.out);
        }
        assertTrue(help.out.contains("3  the node did not answer"), help.out);
        Run put = Run.kvctl("put", "--help");
        assertTrue(put.out.contains("Examples:") && put.out.contains("--value-file"), put.out);
    }

    @Test
    void completionPrintsABashScriptForEveryCommand() {
        Run completion = Run.kvctl("completion");
        assertEquals(0, completion.exitCode, completion.toString());
        assertTrue(completion.out.startsWith("#!/usr/bin/env bash"), completion.out.substring(0, 100));
        assertTrue(completion.out.contains("complete -F _complete_kvctl"), "registers the function");
        assertTrue(completion.out.contains("decommission") && completion.out.contains("--value-file"));
    }

    @Test
    void aNodeUrlThatDoesNotParseIsAUsageError() {
        Run bad = Run.kvctl("status", "--node", "localhost:8080/x");
        assertEquals(Kvctl.USAGE, bad.exitCode, bad.toString());
        assertTrue(bad.err.contains("--node: node URL must look like http://host:port"), bad.err);
        Run variable = Run.with(Map.of("KVCTL_NODE", "ftp://x:1"), new byte[0], "cluster");
        assertEquals(Kvctl.USAGE, variable.exitCode, variable.toString());
        assertTrue(variable.err.contains("KVCTL_NODE: "), variable.err);
        Run before = Run.kvctl("--node", "localhost:8080/x", "cluster");
        assertEquals(Kvctl.USAGE, before.exitCode, "the shared options go before the command too: " + before);
        assertTrue(before.err.contains("--node: "), before.err);
        Run unknown = Run.kvctl("status", "--nodes", "http://127.0.0.1:1");
        assertEquals(Kvctl.USAGE, unknown.exitCode, unknown.toString());
    }

    @Test
    void aNodeThatDoesNotAnswerIsExitThreeForEveryKindOfCommand() throws Exception {
        String nobody = "http://127.0.0.1:" + Nodes.freePort();
        for (String[] args : new String[][] {{"status"}, {"changes"}, {"repair"}, {"decommission"}, {"get", "k"}, {"scan", "a"}}) {
            Run run = Run.with(Map.of("KVCTL_NODE", nobody), new byte[0], args);
            assertEquals(Kvctl.UNREACHABLE, run.exitCode, String.join(" ", args) + ": " + run);
            assertTrue(run.err.contains("cannot reach"), run.err);
        }
    }

    @Test
    void aMissingOrEmptyCredentialOrCaFileIsAUsageError() throws Exception {
        Run missing = Run.kvctl("changes", "--token-file", dir.resolve("none").toString());
        assertEquals(Kvctl.USAGE, missing.exitCode, missing.toString());
        assertTrue(missing.err.contains("--token-file " + dir.resolve("none") + " does not exist"), missing.err);
        Path empty = java.nio.file.Files.writeString(dir.resolve("empty"), "\n");
        Run blank = Run.kvctl("changes", "--secret-file", empty.toString());
        assertEquals(Kvctl.USAGE, blank.exitCode, blank.toString());
        assertTrue(blank.err.contains("is empty"), blank.err);
        Run both = Run.kvctl("changes", "--secret-file", empty.toString(), "--token-file", empty.toString());
        assertEquals(Kvctl.USAGE, both.exitCode, both.toString());
        Run ca = Run.kvctl("status", "--node", "https://127.0.0.1:1", "--tls-ca", empty.toString());
        assertEquals(Kvctl.USAGE, ca.exitCode, ca.toString());
        assertTrue(ca.err.contains("--tls-ca " + empty), ca.err);
    }
}
