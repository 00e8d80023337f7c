package io.kvstore.server.config;

import java.util.Locale;

/** How a node sets the budget its background work shares (see {@link KvServerConfig#backgroundBudget()}). */
public enum BackgroundBudgetMode {
    /**
     * A controller moves the budget between {@link KvServerConfig#backgroundBudgetMinBytesPerSecond()}
     * and the sum of the background rates from the requests' latency and how many are in flight.
     */
    ADAPTIVE,
    /** Each kind of background work at its own rate, whatever the requests do. */
    FIXED;

    /** The flag value: {@code adaptive} or {@code fixed}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for anything but {@code adaptive} or {@code fixed} */
    public static BackgroundBudgetMode fromId(String id) {
        for (BackgroundBudgetMode mode : values()) {
            if (mode.id().equals(id.toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown background budget '" + id + "': expected adaptive or fixed");
    }
}
