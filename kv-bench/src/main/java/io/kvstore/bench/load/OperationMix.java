package io.kvstore.bench.load;

import java.util.Locale;
import java.util.SplittableRandom;

/** The share of PUT, GET, DELETE and range requests, parsed from e.g. {@code put=1,get=3}. */
final class OperationMix {
    enum Op { PUT, GET, DELETE, RANGE }

    private final double putShare;
    private final double getShare;
    private final double deleteShare;
    private final boolean ranges;

    private OperationMix(double put, double get, double delete, double range) {
        double total = put + get + delete + range;
        this.putShare = put / total;
        this.getShare = get / total;
        this.deleteShare = delete / total;
        this.ranges = range > 0;
    }

    /** Accepts a single operation ({@code put}) or weights ({@code put=1,get=3,delete=0.5,range=0.1}). */
    static OperationMix parse(String spec) {
        double put = 0;
        double get = 0;
        double delete = 0;
        double range = 0;
        for (String part : spec.toLowerCase(Locale.ROOT).split(",")) {
            String[] kv = part.trim().split("=", 2);
            double weight;
            try {
                weight = kv.length == 2 ? Double.parseDouble(kv[1]) : 1.0;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad weight in operation mix '" + spec + "': " + part);
            }
            if (!(weight >= 0) || Double.isInfinite(weight)) {
                throw new IllegalArgumentException("weights must be finite and >= 0 in '" + spec + "'");
            }
            switch (kv[0]) {
                case "put": put += weight; break;
                case "get": get += weight; break;
                case "delete": delete += weight; break;
                case "range": range += weight; break;
                default:
                    throw new IllegalArgumentException("unknown operation '" + kv[0] + "' in '" + spec
                            + "' (expected put, get, delete, range)");
            }
        }
        if (put + get + delete + range <= 0) {
            throw new IllegalArgumentException("operation mix '" + spec + "' has no positive weight");
        }
        return new OperationMix(put, get, delete, range);
    }

    Op next(SplittableRandom random) {
        double u = random.nextDouble();
        if (u < putShare) {
            return Op.PUT;
        }
        if (u < putShare + getShare) {
            return Op.GET;
        }
        // The shares' sum may round below 1: without ranges, the rest is DELETE's.
        return !ranges || u < putShare + getShare + deleteShare ? Op.DELETE : Op.RANGE;
    }

    /** Whether some requests are ranges. */
    boolean hasRanges() {
        return ranges;
    }

    boolean hasOnly(Op op) {
        switch (op) {
            case PUT: return putShare == 1.0;
            case GET: return getShare == 1.0;
            case DELETE: return deleteShare == 1.0;
            default: return ranges && putShare == 0 && getShare == 0 && deleteShare == 0;
        }
    }
}
