package io.xrpc.testing;

import java.util.concurrent.atomic.AtomicInteger;

/** A class no service names: counts every construction, so a test can prove none happened. */
public class Canary {
    public static final AtomicInteger CREATED = new AtomicInteger();
    public String note = "tweet";

    public Canary() {
        CREATED.incrementAndGet();
    }
}
