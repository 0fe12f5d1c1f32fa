package io.xrpc.spring.observation;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the interceptors do when an observation handler or convention throws: the call goes on (or
 * keeps its result) unobserved, and the first such failure of each interceptor is logged.
 */
final class Guard {
    private static final Logger log = LoggerFactory.getLogger(Guard.class);
    private final AtomicBoolean logged = new AtomicBoolean();
    private final String side;

    Guard(String side) {
        this.side = side;
    }

    void failed(String step, Throwable e) {
        if (!logged.get() && logged.compareAndSet(false, true)) {
            log.warn("Observing an XRpc {} call failed in {}; calls go on, their observation may be incomplete"
                    + " (logged once)", side, step, e);
        }
    }
}
