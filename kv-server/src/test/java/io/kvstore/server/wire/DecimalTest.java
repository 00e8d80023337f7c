package io.kvstore.server.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DecimalTest {
    @Test
    void decimalsAreAsciiDigitsOnly() {
        assertEquals(0, Decimal.parse("0", "ts"));
        assertEquals(42, Decimal.parse("0042", "ts"));
        assertEquals(Long.MAX_VALUE, Decimal.parse(Long.toString(Long.MAX_VALUE), "ts"));
        for (String bad : new String[] {null, "", "+5", "-5", " 5", "5 ", "1e3", "0x10", "5.0", "\u0661\u0662", "9223372036854775808",
                "99999999999999999999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Decimal.parse(bad, "ts"),
                    "'" + bad + "'");
            assertTrue(e.getMessage().contains("bad ts"), e.getMessage());
        }
    }
}
