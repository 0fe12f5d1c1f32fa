package io.xrpc.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a buffer leak while it ran. Registered for every test
 * class through {@code META-INF/services} and JUnit's extension auto-detection.
 *
 * <p>Netty notices a leak only when the leaked buffer has been garbage collected and another
 * buffer is then allocated, so after the class this forces a few collections and allocations.
 */
public final class LeakCheckExtension implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (int i = 0; i < 5; i++) {
            System.gc();
            for (int j = 0; j < 64; j++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer(16);
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.buffer(16);
                a.release();
                b.release();
            }
        }
        if (!LeakRecorder.LEAKS.isEmpty()) {
            List<String> leaks = new ArrayList<>(LeakRecorder.LEAKS);
            LeakRecorder.LEAKS.clear();
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) reported during or before "
                    + context.getDisplayName() + ":\n" + String.join("\n\n", leaks));
        }
    }
}
