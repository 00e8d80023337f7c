package io.kvstore.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.core.background.ForegroundSignal;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Each sample covers the requests completed since the previous one, and the requests in flight at that moment. */
class RequestWindowTest {
    @Test
    void aSampleHoldsTheRequestsSinceThePreviousOne() {
        AtomicInteger inFlight = new AtomicInteger(3);
        RequestWindow window = new RequestWindow(inFlight::get);
        assertEquals(new ForegroundSignal.Sample(0, 0, 3), window.sample());

        window.record(1_000);
        window.record(3_000);
        assertEquals(new ForegroundSignal.Sample(2, 2_000, 3), window.sample());

        window.record(10_000);
        inFlight.set(7);
        assertEquals(new ForegroundSignal.Sample(1, 10_000, 7), window.sample(), "only the request since");
        assertEquals(new ForegroundSignal.Sample(0, 0, 7), window.sample());
    }
}
