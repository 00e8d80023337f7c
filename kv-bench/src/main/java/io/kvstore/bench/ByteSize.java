package io.kvstore.bench;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A size on the command line: bytes, or a number with a binary suffix such as {@code 200m}, {@code 1.5g}. */
final class ByteSize implements ITypeConverter<Long> {

    /** The bytes {@code text} names: a number, optionally followed by k, m, g or t (powers of 1024). */
    static long parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (!s.isEmpty()) {
            int suffix = "kmgt".indexOf(s.charAt(s.length() - 1));
            if (suffix >= 0) {
                shift = 10 * (suffix + 1);
                s = s.substring(0, s.length() - 1);
            }
        }
        double number;
        try {
            number = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 4096, 200m, 1.5g)");
        }
        if (!(number >= 0) || Double.isInfinite(number)) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 4096, 200m, 1.5g)");
        }
        return (long) (number * (1L << shift));
    }

    @Override
    public Long convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
