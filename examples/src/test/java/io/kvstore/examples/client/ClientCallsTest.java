package io.kvstore.examples.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientCallsTest {
    @Test
    void callsBlockingAndAsyncReadsARangeAndNamesEachFailure(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ClientCalls.run(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        for (String expected : new String[] {
            "blocking: get user:1 -> Ada\n",
            "blocking: get user:404 -> (absent)\n",
            "async: 4 puts completed; get user:3 ack=1 -> user number 3\n",
            "range [user:2, user:5):\n  user:2 = user number 2\n  user:3 = user number 3\n  user:4 = user number 4\n",
            "ack 3 of 2: IllegalArgumentException before sending",
            "from=4 of 3 nodes: InvalidRequestException, status 400",
            "put user:6 ack=2 from=3 with a node down -> stored\n",
            "put user:7 ack=3 from=3 with a node down -> QuorumNotReachedException, status 504 (",
            "async get user:6 ack=3 from=3 with a node down -> QuorumNotReachedException\n",
            "no node: KvClientException, status 0 ",
        }) {
            assertTrue(out.contains(expected), "missing: " + expected + "\n--- output:\n" + out);
        }
        assertTrue(!out.contains("user:5 = "), "the range's end is exclusive:\n" + out);
    }
}
