package io.kvstore.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The console's rates from two scrapes of the Prometheus text a node serves. */
class RequestRatesTest {
    private static String scrape(int puts, int failedPuts, int fastPuts, int statusCalls) {
        return String.join("\n",
                "# HELP vertx_http_server_requests_total Requests answered",
                "# TYPE vertx_http_server_requests_total counter",
                "vertx_http_server_requests_total{code=\"201\",method=\"PUT\",route=\"/v0/entity\"} " + (puts - failedPuts) + ".0",
                "vertx_http_server_requests_total{code=\"504\",method=\"PUT\",route=\"/v0/entity\"} " + failedPuts + ".0",
                "vertx_http_server_requests_total{code=\"200\",method=\"GET\",route=\"/v0/status\"} " + statusCalls + ".0",
                "vertx_http_server_response_time_seconds_bucket{code=\"201\",le=\"0.001\",method=\"PUT\",route=\"/v0/entity\"} "
                        + fastPuts + ".0",
                "vertx_http_server_response_time_seconds_bucket{code=\"201\",le=\"0.01\",method=\"PUT\",route=\"/v0/entity\"} "
                        + (puts - failedPuts) + ".0",
                "vertx_http_server_response_time_seconds_bucket{code=\"201\",le=\"+Inf\",method=\"PUT\",route=\"/v0/entity\"} "
                        + (puts - failedPuts) + ".0",
                "vertx_http_server_response_time_seconds_bucket{code=\"504\",le=\"0.001\",method=\"PUT\",route=\"/v0/entity\"} 0.0",
                "vertx_http_server_response_time_seconds_bucket{code=\"504\",le=\"0.01\",method=\"PUT\",route=\"/v0/entity\"} 0.0",
                "vertx_http_server_response_time_seconds_bucket{code=\"504\",le=\"+Inf\",method=\"PUT\",route=\"/v0/entity\"} "
                        + failedPuts + ".0",
                "kv_other_metric{route=\"/v0/entity\"} 5.0",
                "");
    }

    @Test
    void ratesErrorsAndQuantilesBetweenTwoScrapes() {
        RequestRates rates = new RequestRates();
        assertNull(rates.observe("n1", scrape(100, 0, 100, 7), 10_000), "nothing to compare the first scrape with");
        assertNull(rates.observe("n1", scrape(100, 0, 100, 7), 10_500), "too soon after the first to say");
        // 200 more PUTs in 2 s: 100 under 1 ms, 90 between 1 and 10 ms, 10 that failed after more than 10 ms.
        JsonObject json = rates.observe("n1", scrape(300, 10, 200, 9), 12_000);
        assertEquals(2000, json.getLong("intervalMillis"));
        assertEquals(100.0, json.getDouble("requestsPerSecond"));
        assertEquals(5.0, json.getDouble("errorsPerSecond"));
        JsonArray operations = json.getJsonArray("operations");
        assertEquals(1, operations.size(), "the console's own /v0/status calls are left out: " + operations);
        JsonObject put = operations.getJsonObject(0);
        assertEquals("PUT /v0/entity", put.getString("operation"));
        assertEquals(1.0, put.getDouble("p50Millis"), 1e-9);
        // the 198th of 200: past the 190 under 10 ms, in the +Inf bucket, shown as its lower bound
        assertEquals(10.0, put.getDouble("p99Millis"), 1e-9);
        assertSame(json, rates.observe("n1", scrape(400, 10, 300, 9), 12_500), "closer than a second: the same figures");
    }

    @Test
    void backgroundWork() {
        RequestRates rates = new RequestRates();
        String before = "kv_repair_exchanges_total{outcome=\"ok\"} 3.0\nkv_repair_exchanges_total{outcome=\"failed\"} 1.0\n"
                + "kv_repair_keys_sent_total 10\nkv_repair_keys_received_total 0\nkv_read_repairs_total 4\n"
                + "kv_hints_total{event=\"replayed\"} 0\nkv_hints_total{event=\"stored\"} 100\n";
        String after = "kv_repair_exchanges_total{outcome=\"ok\"} 5.0\nkv_repair_exchanges_total{outcome=\"failed\"} 2.0\n"
                + "kv_repair_keys_sent_total 30\nkv_repair_keys_received_total 20\nkv_read_repairs_total 8\n"
                + "kv_hints_total{event=\"replayed\"} 50\nkv_hints_total{event=\"stored\"} 900\n";
        rates.observe("n1", before, 0);
        JsonObject background = rates.observe("n1", after, 2_000).getJsonObject("background");
        assertEquals(7.0, background.getDouble("repairExchanges"));
        assertEquals(2.0, background.getDouble("repairExchangesFailed"));
        assertEquals(20.0, background.getDouble("repairKeysPerSecond"));
        assertEquals(2.0, background.getDouble("readRepairsPerSecond"));
        assertEquals(25.0, background.getDouble("hintsReplayedPerSecond"));
    }

    @Test
    void aNodeThatRestartedCountsFromZero() {
        RequestRates rates = new RequestRates();
        rates.observe("n1", scrape(1000, 0, 1000, 0), 0);
        JsonObject json = rates.observe("n1", scrape(20, 0, 20, 0), 2_000);
        assertEquals(10.0, json.getDouble("requestsPerSecond"));
    }

    @Test
    void quantileInterpolatesWithinItsBucket() {
        TreeMap<Double, Double> before = new TreeMap<>();
        TreeMap<Double, Double> after = new TreeMap<>(Map.of(0.001, 0.0, 0.002, 100.0,
                Double.POSITIVE_INFINITY, 100.0));
        assertEquals(1.5, RequestRates.quantile(before, after, 0.5), 1e-9);
        assertNull(RequestRates.quantile(after, after, 0.5), "no requests in the interval");
    }

    @Test
    void labelsWithEscapes() {
        assertEquals(Map.of("a", "x\"y", "b", "back\\slash", "c", ""), RequestRates.labels("a=\"x\\\"y\",b=\"back\\\\slash\",c=\"\""));
    }

    @Test
    void linesThatAreNotSamplesAreSkipped() {
        RequestRates.Scrape scrape = RequestRates.parse("vertx_http_server_requests_total{route=\"/v0/entity\" junk\n"
                + "vertx_http_server_requests_total{method=\"GET\",route=\"/v0/entity\",code=\"200\"} NaNx\n"
                + "vertx_http_server_requests_total{method=\"GET\",route=\"/v0/entity\",code=\"200\"} 3\n", 0);
        assertEquals(3.0, scrape.operations().get("GET /v0/entity").requests);
    }
}
