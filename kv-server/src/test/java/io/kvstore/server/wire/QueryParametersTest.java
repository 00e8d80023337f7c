package io.kvstore.server.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QueryParametersTest {

    @Test
    void findsTheNamedParameterAndOnlyIt() {
        assertEquals("k", QueryParameters.text("id=k&ack=1", "id"));
        assertEquals("1", QueryParameters.text("id=k&ack=1", "ack"));
        assertNull(QueryParameters.text("id=k&ack=1", "from"));
        assertNull(QueryParameters.text("idx=k", "id"), "a longer name is another parameter");
        assertNull(QueryParameters.text("xid=k", "id"));
        assertEquals("2", QueryParameters.text("xid=1&id=2", "id"));
        assertEquals("first", QueryParameters.text("id=first&id=second", "id"), "the first occurrence counts");
        assertNull(QueryParameters.text(null, "id"));
        assertNull(QueryParameters.text("", "id"));
    }

    @Test
    void emptyAndBareParametersAreEmpty() {
        assertEquals("", QueryParameters.text("id=", "id"));
        assertEquals("", QueryParameters.text("id", "id"));
        assertEquals("", QueryParameters.text("a=1&id&b=2", "id"));
        assertEquals("", QueryParameters.text("a=1&id=", "id"));
    }

    @Test
    void percentDecodesToBytesWithoutGuessingACharset() {
        assertArrayEquals("ключ".getBytes(StandardCharsets.UTF_8),
                QueryParameters.bytes("id=%D0%BA%D0%BB%D1%8E%D1%87", "id"));
        assertArrayEquals(new byte[] {(byte) 0xFE}, QueryParameters.bytes("id=%FE", "id"));
        assertArrayEquals(new byte[] {(byte) 0xFF}, QueryParameters.bytes("id=%ff", "id"));
        assertArrayEquals(new byte[] {0, '\n', '&', '='}, QueryParameters.bytes("id=%00%0A%26%3D", "id"));
        assertEquals("a+b", QueryParameters.text("id=a+b", "id"), "+ is a plus sign");
        assertEquals("a=b", QueryParameters.text("id=a=b", "id"), "only the first = separates");
    }

    @Test
    void malformedEscapesAreRejectedWithTheParameterName() {
        for (String bad : new String[] {"id=%", "id=%4", "id=%zz", "id=%%41", "id=a%g1", "id=a%", "id=ab%", "id=abc%4",
                "id=%41%", "id=%41%4&x=1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QueryParameters.bytes(bad, "id"), bad);
            assertEquals(true, e.getMessage().startsWith("bad percent-encoding in parameter 'id'"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> QueryParameters.bytes("id=ключ", "id"));
    }

    /** Random ids over an alphabet rich in '%' and hex digits: decoded as a plain reference does, or refused. */
    @Test
    void randomIdsDecodeAsTheReferenceDoesOrAreRefusedWithIllegalArgument() {
        long seed = System.nanoTime();
        System.out.println("QueryParametersTest seed " + seed);
        java.util.Random random = new java.util.Random(seed);
        String alphabet = "%%%0aF4gz+";
        for (int round = 0; round < 20_000; round++) {
            StringBuilder id = new StringBuilder();
            for (int i = random.nextInt(9); i > 0; i--) {
                id.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String query = "id=" + id + (random.nextBoolean() ? "&ack=1" : "");
            byte[] expected = reference(id.toString());
            if (expected == null) {
                assertThrows(IllegalArgumentException.class, () -> QueryParameters.bytes(query, "id"), "seed " + seed + ": " + query);
            } else {
                assertArrayEquals(expected, QueryParameters.bytes(query, "id"), "seed " + seed + ": " + query);
            }
        }
    }

    /** Percent-decoding by the RFC 3986 grammar; null if the text is not made of plain chars and %XX escapes. */
    private static byte[] reference(String text) {
        if (!text.matches("([^%]|%[0-9a-fA-F]{2})*")) {
            return null;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '%') {
                out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(text.charAt(i));
            }
        }
        return out.toByteArray();
    }
}
