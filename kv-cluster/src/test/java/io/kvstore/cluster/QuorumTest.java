package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class QuorumTest {

    @Test
    void defaultsAreAllNodesAndAMajority() {
        assertEquals("1/1", Quorum.defaults(1).toString());
        assertEquals("2/2", Quorum.defaults(2).toString());
        assertEquals("2/3", Quorum.defaults(3).toString());
        assertEquals("3/4", Quorum.defaults(4).toString());
        assertEquals("3/5", Quorum.defaults(5).toString());
    }

    @Test
    void absentParametersTakeDefaultsFromWhatIsGiven() {
        assertEquals(Quorum.of(2, 3, 3), Quorum.parse(null, null, 3));
        assertEquals(Quorum.of(1, 1, 3), Quorum.parse(null, "1", 3));
        assertEquals(Quorum.of(2, 2, 3), Quorum.parse(null, "2", 3));
        assertEquals(Quorum.of(1, 3, 3), Quorum.parse("1", null, 3));
        assertEquals(Quorum.of(3, 3, 3), Quorum.parse("3", "3", 3));
    }

    @Test
    void rejectsEveryMalformedOrOutOfRangeValue() {
        assertInvalid("from must be in [1, 3], got 4", null, "4");
        assertInvalid("from must be in [1, 3], got 0", null, "0");
        assertInvalid("ack must be in [1, from=2], got 3", "3", "2");
        assertInvalid("ack must be in [1, from=3], got 0", "0", null);
        assertInvalid("ack must be a small positive integer, got '-1'", "-1", null);
        assertInvalid("from must be a small positive integer, got ''", null, "");
        assertInvalid("ack must be a small positive integer, got '1.5'", "1.5", null);
        assertInvalid("ack must be a small positive integer, got ' 1'", " 1", null);
        assertInvalid("from must be a small positive integer, got '99999999999999999999'", null, "99999999999999999999");
        assertInvalid("ack must be a small positive integer, got '２'", "２", null); // full-width digit
    }

    private static void assertInvalid(String message, String ack, String from) {
        InvalidQuorumException e = assertThrows(InvalidQuorumException.class, () -> Quorum.parse(ack, from, 3));
        assertEquals(message, e.getMessage());
    }
}
