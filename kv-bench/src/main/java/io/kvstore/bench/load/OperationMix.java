package io.kvstore.bench.load;

import java.util.Locale;
import java.util.SplittableRandom;

/** The share of PUT, GET and DELETE requests, parsed from e.g. {@code put=1,get=3}. */
final class OperationMix {
    enum Op { PUT, GET, DELETE }

    private final double putShare;
    private final double getShare;

    private OperationMix(double put, double get, double delete) {
        double total = put + get + delete;
        this.putShare = put / total;
        this.getShare = get / total;
    }

    /** Accepts a single operation ({@code put}) or weights ({@code put=1,get=3,delete=0.5}). */
    static OperationMix parse(String spec) {
        double put = 0;
        double get = 0;
        double delete = 0;
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
                default:
                    throw new IllegalArgumentException("unknown operation '" + kv[0] + "' in '" + spec
                            + "' (expected put, get, delete)");
            }
        }
        if (put + get + delete <= 0) {
            throw new IllegalArgumentException("operation mix '" + spec + "' has no positive weight");
        }
        return new OperationMix(put, get, delete);
    }

    Op next(SplittableRandom random) {
        double u = random.nextDouble();
        if (u < putShare) {
            return Op.PUT;
        }
        return u < putShare + getShare ? Op.GET : Op.DELETE;
    }

    boolean hasOnly(Op op) {
        switch (op) {
            case PUT: return putShare == 1.0;
            case GET: return getShare == 1.0;
            default: return putShare == 0 && getShare == 0;
        }
    }
}
