package io.xrpc.serialize.kryo;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** What a thread keeps of Kryo's scratch space after a large message. */
class KryoScratchTest {
    @Test
    void aThreadGivesBackTheStringScratchOfALargeMessage() throws Exception {
        KryoSerializer kryo = new KryoSerializer(ClassAllowList.withDefaults(), ReadLimits.defaults());
        String large = "é".repeat(4 * 1024 * 1024); // UTF-8, read through the char scratch
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        kryo.writeArguments(new Object[] {large}, out);
        Object[] read = kryo.readArguments(
                new ByteArrayInputStream(out.toByteArray()), new Class<?>[] {String.class}, Serializer.NO_DEADLINE);
        assertThat(read[0]).isEqualTo(large);
        // It used to keep an 8 MiB char[] per thread, for good.
        assertThat(kryo.retainedScratchChars()).isLessThanOrEqualTo(GuardedInput.MAX_RETAINED_CHARS);
    }
}
