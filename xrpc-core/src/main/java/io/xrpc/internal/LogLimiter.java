package io.xrpc.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A warning per event, at most {@value #LINES_PER_SECOND} a second; past that the events are
 * counted, and the count is logged when the next second begins. Events that peers can cause at
 * will (connections refused, connections closed on a bad frame) go through one, so a flood of
 * them cannot flood the log.
 */
public final class LogLimiter {
    private static final int LINES_PER_SECOND = 10;

    private final Logger log;
    private final String what;
    private final AtomicLong second = new AtomicLong(System.nanoTime());
    private final AtomicInteger lines = new AtomicInteger();
    private final AtomicInteger suppressed = new AtomicInteger();

    /** @param what the events, for the line that counts the suppressed ones ("connections refused") */
    public LogLimiter(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /** Logs the line unless this second's lines are used up; returns whether it was logged. */
    public boolean warn(String format, Object... args) {
        long now = System.nanoTime();
        long start = second.get();
        if (now - start > TimeUnit.SECONDS.toNanos(1) && second.compareAndSet(start, now)) {
            lines.set(0);
            int dropped = suppressed.getAndSet(0);
            if (dropped > 0) {
                log.warn("{} more {} in the last second, not logged one by one", dropped, what);
            }
        }
        if (lines.incrementAndGet() <= LINES_PER_SECOND) {
            log.warn(format, args);
            return true;
        }
        suppressed.incrementAndGet();
        return false;
    }
}
