package io.xrpc.serialize.fory;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.fory.Fory;
import org.apache.fory.resolver.SharedRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fory reads a {@code ByteBuffer} as a view of the message's memory, which XRpc gives back to
 * Netty's pool after the read (HostilePayloadTest shows what a view would see). A payload may name
 * any {@code ByteBuffer} class the allow-list allows, not only the two Fory registers itself and
 * writes: each is read by the copying serializer.
 */
@Timeout(30)
class ForyByteBufferTest {

    @Test
    void everyByteBufferClassIsReadAsACopy() {
        ClassAllowList list = ClassAllowList.withDefaults().allowPackage("java.nio.");
        Fory fory = new ForySerializer(list, ReadLimits.defaults()).build(list, new SharedRegistry());
        List<Class<?>> classes = List.of(
                ByteBuffer.wrap(new byte[1]).getClass(),
                ByteBuffer.wrap(new byte[1]).asReadOnlyBuffer().getClass(),
                ByteBuffer.allocateDirect(1).getClass(),
                ByteBuffer.allocateDirect(1).asReadOnlyBuffer().getClass());
        assertThat(classes).doesNotHaveDuplicates();
        for (Class<?> c : classes) {
            assertThat(fory.getTypeResolver().getSerializer(c).getClass().getSimpleName())
                    .as(c.getName())
                    .isEqualTo("CopiedByteBuffer");
        }
    }
}
