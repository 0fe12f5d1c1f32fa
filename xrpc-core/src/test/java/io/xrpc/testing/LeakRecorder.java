package io.xrpc.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector with a memory: surefire names this class in
 * {@code -Dio.netty.customResourceLeakDetector}, so every detector Netty creates records the leaks
 * it reports, and {@link LeakCheckExtension} fails the test class that left one.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
    static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + " leaked:" + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " leaked (untraced)");
        super.reportUntracedLeak(resourceType);
    }
}
