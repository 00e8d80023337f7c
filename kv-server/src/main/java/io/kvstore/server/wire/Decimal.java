package io.kvstore.server.wire;

/**
 * The one reader of the protocol's non-negative decimal numbers, in query parameters and headers alike
 * (timestamps, expiries, epochs, ids, counts): ASCII digits only, so that no sign, space, exponent or
 * radix prefix that {@link Long#parseLong} or a peer might read another way slips through.
 */
public final class Decimal {
    private Decimal() {
    }

    /**
     * {@code value} of the parameter or header {@code name}.
     *
     * @throws IllegalArgumentException naming both if it is anything but 1 to 19 ASCII digits, or above
     *                                  {@link Long#MAX_VALUE}
     */
    public static long parse(String value, String name) {
        boolean digits = value != null && !value.isEmpty() && value.length() <= 19;
        for (int i = 0; digits && i < value.length(); i++) {
            char c = value.charAt(i);
            digits = c >= '0' && c <= '9';
        }
        try {
            if (digits) {
                return Long.parseLong(value);
            }
        } catch (NumberFormatException tooLarge) {
            // 19 digits above Long.MAX_VALUE
        }
        throw new IllegalArgumentException("bad " + name + " '" + value + "': a non-negative decimal number expected");
    }
}
