package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuorumTest {

    @ParameterizedTest(name = "cluster of {0}: {1}/{0}")
    @CsvSource({"1, 1", "2, 2", "3, 2", "4, 3", "5, 3"})
    void defaultsAreAMajorityOfTheWholeCluster(int clusterSize, int expectedAck) {
        Quorum quorum = Quorum.defaults(clusterSize);
        assertEquals(clusterSize, quorum.from());
        assertEquals(expectedAck, quorum.ack());
        assertEquals(quorum, Quorum.parse(null, null, clusterSize));
    }

    @Test
    void absentAckDefaultsToTheMajorityOfTheGivenFrom() {
        assertEquals(Quorum.of(2, 3, 5), Quorum.parse(null, "3", 5));
        assertEquals(Quorum.of(1, 1, 5), Quorum.parse(null, "1", 5));
        assertEquals(Quorum.of(3, 4, 5), Quorum.parse(null, "4", 5));
    }

    @Test
    void absentFromDefaultsToTheClusterSize() {
        assertEquals(Quorum.of(1, 3, 3), Quorum.parse("1", null, 3));
        assertEquals(Quorum.of(3, 3, 3), Quorum.parse("3", null, 3));
    }

    @Test
    void explicitValuesAreKept() {
        Quorum quorum = Quorum.parse("2", "2", 3);
        assertEquals(2, quorum.ack());
        assertEquals(2, quorum.from());
        assertEquals("2/2", quorum.toString());
    }

    @Test
    void outOfRangeValuesAreRejectedWithTheOffendingParameter() {
        assertInvalid("ack=0 must be between 1 and from=3", () -> Quorum.parse("0", "3", 3));
        assertInvalid("ack=4 must be between 1 and from=3", () -> Quorum.parse("4", "3", 3));
        assertInvalid("ack=3 must be between 1 and from=2", () -> Quorum.parse("3", "2", 3));
        assertInvalid("from=4 must be between 1 and the cluster size 3", () -> Quorum.parse("1", "4", 3));
        assertInvalid("from=4 must be between 1 and the cluster size 3", () -> Quorum.parse(null, "4", 3));
        assertInvalid("from=0 must be between 1", () -> Quorum.parse(null, "0", 3));
        assertInvalid("ack=4 must be between 1 and from=3", () -> Quorum.parse("4", null, 3));
        assertInvalid("ack=2 must be between 1 and from=1", () -> Quorum.of(2, 1, 3));
    }

    @Test
    void nonIntegersAreRejected() {
        assertInvalid("ack='two' is not an integer", () -> Quorum.parse("two", "3", 3));
        assertInvalid("from='' is not an integer", () -> Quorum.parse("1", "", 3));
        assertInvalid("ack='1.5' is not an integer", () -> Quorum.parse("1.5", null, 3));
        assertInvalid("from='99999999999' is not an integer", () -> Quorum.parse(null, "99999999999", 3));
        assertInvalid("ack=' 1' is not an integer", () -> Quorum.parse(" 1", null, 3));
        assertInvalid("from='-1' is not an integer", () -> Quorum.parse("1", "-1", 3));
        assertInvalid("ack='+1' is not an integer", () -> Quorum.parse("+1", null, 3));
        assertInvalid("ack='\u0661' is not an integer", () -> Quorum.parse("\u0661", null, 3)); // Arabic-Indic one
    }

    @Test
    void leadingZerosAreStillDecimal() {
        assertEquals(Quorum.of(2, 3, 3), Quorum.parse("02", "003", 3));
    }

    @Test
    void anEmptyClusterIsAProgrammingError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quorum.defaults(0));
        assertTrue(e.getMessage().contains("cluster size must be >= 1"));
    }

    @Test
    void invalidQuorumIsAnIllegalArgument() {
        assertTrue(IllegalArgumentException.class.isAssignableFrom(InvalidQuorumException.class));
    }

    private static void assertInvalid(String expectedMessagePart, Runnable action) {
        InvalidQuorumException e = assertThrows(InvalidQuorumException.class, action::run);
        assertTrue(e.getMessage().contains(expectedMessagePart),
                () -> "message '" + e.getMessage() + "' lacks '" + expectedMessagePart + "'");
    }
}
