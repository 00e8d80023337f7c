package io.kvstore.client;

/**
 * Per-call replication parameters: {@code ack} (answers awaited), {@code from} (replicas asked) and,
 * for a PUT, {@code ttl} (seconds until the value expires). Unset ones take the server's defaults.
 * Immutable; each setter returns a copy, so a configured instance can be shared and reused.
 *
 * <pre>{@code
 * CallOptions twoOfThree = CallOptions.DEFAULT.ack(2).from(3);
 * client.put(key, value, twoOfThree.ttlSeconds(3600));
 * }</pre>
 */
public final class CallOptions {
    /** The server's defaults: {@code from} = the replication factor, {@code ack} = a majority of it. */
    public static final CallOptions DEFAULT = new CallOptions(0, 0, 0);
    /** The largest {@code ttl} the protocol accepts: 100 years in seconds. */
    public static final long MAX_TTL_SECONDS = 3_153_600_000L;

    private final int ack;
    private final int from;
    private final long ttlSeconds;
    /** {@code &ack=A&from=F}, built once so that a request appends one string. */
    private final String query;

    private CallOptions(int ack, int from, long ttlSeconds) {
        this.ack = ack;
        this.from = from;
        this.ttlSeconds = ttlSeconds;
        this.query = (ack == 0 ? "" : "&ack=" + ack) + (from == 0 ? "" : "&from=" + from);
    }

    /**
     * Completes once {@code ack} replicas answered.
     *
     * @throws IllegalArgumentException if {@code ack < 1} or {@code ack > from()} where {@code from} is set
     */
    public CallOptions ack(int ack) {
        if (ack < 1 || (from != 0 && ack > from)) {
            throw new IllegalArgumentException("ack must be in 1.." + (from == 0 ? "from" : from) + ", got " + ack);
        }
        return new CallOptions(ack, from, ttlSeconds);
    }

    /**
     * Asks {@code from} replicas.
     *
     * @throws IllegalArgumentException if {@code from < 1} or {@code from < ack()} where {@code ack} is set
     */
    public CallOptions from(int from) {
        if (from < 1 || (ack != 0 && from < ack)) {
            throw new IllegalArgumentException("from must be >= max(1, ack), got " + from + " with ack " + ack);
        }
        return new CallOptions(ack, from, ttlSeconds);
    }

    /**
     * A PUT's value expires {@code seconds} after the write and then reads as absent everywhere. Needs a
     * server that implements {@code ttl}; one that does not ignores it and keeps the value.
     *
     * @throws IllegalArgumentException unless {@code 1 <= seconds <= } {@value #MAX_TTL_SECONDS}
     */
    public CallOptions ttlSeconds(long seconds) {
        if (seconds < 1 || seconds > MAX_TTL_SECONDS) {
            throw new IllegalArgumentException("ttl must be in 1.." + MAX_TTL_SECONDS + " seconds, got " + seconds);
        }
        return new CallOptions(ack, from, seconds);
    }

    /** {@code ack}, or 0 for the server's default. */
    public int ack() {
        return ack;
    }

    /** {@code from}, or 0 for the server's default. */
    public int from() {
        return from;
    }

    /** {@code ttl} in seconds, or 0 for none. */
    public long ttlSeconds() {
        return ttlSeconds;
    }

    /** The query parameters of a GET or DELETE: {@code &ack=A&from=F} where set. */
    String query() {
        return query;
    }

    /** The query parameters of a PUT: also {@code &ttl=S} where set. */
    String putQuery() {
        return ttlSeconds == 0 ? query : query + "&ttl=" + ttlSeconds;
    }

    @Override
    public String toString() {
        return "CallOptions{ack=" + (ack == 0 ? "default" : ack) + ", from=" + (from == 0 ? "default" : from)
                + (ttlSeconds == 0 ? "" : ", ttl=" + ttlSeconds + "s") + "}";
    }
}
