package io.kvstore.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The values of the engine benchmarks: {@link #VALUE_BYTES} bytes each unless asked otherwise, a pure
 * function of the key's index (as {@link BenchKeys} makes keys), so a preloaded store can be checked
 * value by value.
 */
enum BenchValues {
    /** Random bytes: no codec shrinks them. */
    RANDOM("random") {
        @Override
        byte[] value(long index, int bytes) {
            byte[] value = new byte[bytes];
            long state = BenchKeys.mix(~index);
            for (int i = 0; i < bytes; i += 8) {
                state = BenchKeys.mix(state + 0x9E3779B97F4A7C15L);
                for (int j = 0; j < 8 && i + j < bytes; j++) {
                    value[i + j] = (byte) (state >>> (8 * j));
                }
            }
            return value;
        }
    },
    /**
     * JSON-like text, as an application storing small documents writes it: the same field names in
     * every value, words drawn from a vocabulary of 64 words and 16 cities, and a random number, cut
     * to size, e.g. (index 1)
     * {@code {"id":56327,"user":"ivory.harbor","city":"Perth","tags":["silver","north"],"note":"chalk thistle c"}}.
     * A table block of them with their keys shrinks to about half under LZ4.
     */
    TEXT("text") {
        @Override
        byte[] value(long index, int bytes) {
            SplittableRandom random = new SplittableRandom(BenchKeys.mix(index));
            StringBuilder text = new StringBuilder(2 * bytes + 128)
                    .append("{\"id\":").append(random.nextInt(1_000_000))
                    .append(",\"user\":\"").append(word(random)).append('.').append(word(random))
                    .append("\",\"city\":\"").append(CITIES[random.nextInt(CITIES.length)])
                    .append("\",\"tags\":[\"").append(word(random)).append("\",\"").append(word(random))
                    .append("\"],\"note\":\"");
            while (text.length() < bytes) {
                text.append(word(random)).append(' ');
            }
            text.setLength(bytes - 2);
            text.append("\"}");
            return text.toString().getBytes(StandardCharsets.US_ASCII);
        }
    };

    /** Bytes of every value. */
    static final int VALUE_BYTES = 100;

    private static final String[] WORDS = {
            "amber", "anchor", "apple", "arrow", "autumn", "basket", "beacon", "birch", "bright", "bronze",
            "canyon", "cedar", "chalk", "cinder", "cloud", "copper", "coral", "crane", "crystal", "delta",
            "desert", "ember", "falcon", "feather", "field", "flint", "forest", "garden", "glacier", "granite",
            "harbor", "hazel", "hollow", "island", "ivory", "jasper", "lantern", "linen", "maple", "marble",
            "meadow", "mirror", "mist", "north", "ocean", "olive", "orchid", "pebble", "pine", "quiet",
            "raven", "ridge", "river", "saffron", "silver", "slate", "stone", "summer", "thistle", "timber",
            "valley", "velvet", "willow", "winter"};
    private static final String[] CITIES = {
            "Lisbon", "Oslo", "Porto", "Kyoto", "Lima", "Quito", "Tunis", "Dakar", "Perth", "Austin",
            "Leeds", "Turin", "Graz", "Brno", "Cork", "Bergen"};

    private final String id;

    BenchValues(String id) {
        this.id = id;
    }

    /** The value stored under the key of {@code index}, of {@link #VALUE_BYTES}. */
    byte[] value(long index) {
        return value(index, VALUE_BYTES);
    }

    /** The value of {@code bytes} bytes stored under the key of {@code index} (text is cut to size). */
    abstract byte[] value(long index, int bytes);

    /** The name used in benchmark parameters and store directories. */
    String id() {
        return id;
    }

    private static String word(SplittableRandom random) {
        return WORDS[random.nextInt(WORDS.length)];
    }
}
