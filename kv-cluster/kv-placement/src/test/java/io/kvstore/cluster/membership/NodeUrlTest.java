package io.kvstore.cluster.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeUrlTest {
    @Test
    void aBaseUrlGivesItsPartsAndKeepsItsText() {
        NodeUrl url = NodeUrl.parse("https://node-1.example:8443");
        assertEquals("https", url.scheme());
        assertEquals("node-1.example", url.host());
        assertEquals(8443, url.port());
        assertEquals("https://node-1.example:8443", url.toString());
        assertEquals(url, NodeUrl.parse("https://node-1.example:8443"));
        assertEquals(0, NodeUrl.parse("http://localhost:0").port(), "a lone node started on port 0");
        assertEquals("::1", NodeUrl.parse("http://[::1]:8080").host().replace("[", "").replace("]", ""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "localhost:8080", "node:8080", "ftp://node:21", "http://node", "http://:8080",
            "http://node:8080/", "http://node:8080/v0", "http://node:8080?x=1", "http://node:8080#f",
            "http://user@node:8080", "http://node:70000", "http://no de:8080", "http://node:-1", "//node:8080"})
    void anythingButSchemeHostAndPortIsRefusedNamingTheUrl(String bad) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> NodeUrl.parse(bad));
        assertTrue(bad.isEmpty() ? refused.getMessage().contains("empty") : refused.getMessage().contains("'" + bad + "'"),
                refused.getMessage());
    }

    @Test
    void aRequiredSchemeIsChecked() {
        assertEquals("http", NodeUrl.parse("http://a:1", "http").scheme());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> NodeUrl.parse("http://a:1", "https"));
        assertTrue(refused.getMessage().contains("https://host:port (with TLS)"), refused.getMessage());
    }

    @Test
    void aClusterMapRefusesAMemberThatIsNotANodeUrl() {
        assertThrows(IllegalArgumentException.class, () -> new Member("not a url", NodeState.NORMAL));
        assertThrows(IllegalArgumentException.class, () -> ClusterMapCodec.fromJson("{\"epoch\":1,\"replicationFactor\":1,"
                + "\"partitioner\":\"ring\",\"virtualNodes\":16,\"nodes\":[{\"url\":\"http://a:1/x\",\"state\":\"normal\"}]}"));
        assertEquals(List.of("http://a:1"), ClusterMap.seed(List.of("http://a:1"), 1, "ring", 16).urls());
    }
}
