package io.xrpc.testing;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerProvider;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Kryo under the name {@code slow-reader}, whose reading of arguments takes until the call's
 * deadline has passed: a stand-in for a payload that is slow to read, without a fixed sleep.
 */
public final class DeadlineWaitingSerializerProvider implements SerializerProvider {
    private static final String NAME = "slow-reader";
    private static final byte ID = 42;
    /** Argument reads finished (after their deadline), so a test can wait for one. */
    public static final AtomicInteger READS = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Serializer create(ClassAllowList allowList, ReadLimits limits) {
        return new ForwardingSerializer(NAME, ID, new KryoSerializerProvider().create(allowList, limits)) {
            @Override
            public Object[] readArguments(InputStream in, Class<?>[] types, long deadlineNanos) throws IOException {
                long bound = System.nanoTime() + 10_000_000_000L;
                while (deadlineNanos != NO_DEADLINE
                        && System.nanoTime() - deadlineNanos <= 0
                        && System.nanoTime() - bound < 0) {
                    LockSupport.parkNanos(1_000_000);
                }
                try {
                    return delegate.readArguments(in, types, NO_DEADLINE);
                } finally {
                    READS.incrementAndGet();
                }
            }
        };
    }
}
