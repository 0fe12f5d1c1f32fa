package io.xrpc.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadDeadlineException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.serialize.protobuf.ProtoField;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@code protobuf} serializer and the derived contract on their own: edge cases found by an outside review. */
@Timeout(60)
class ProtobufSerializerTest {
    public record P(int a, int b) {}

    public record Bag(Set<P> items) {}

    public record Labels(Map<String, String> labels) {}

    public record Far(@ProtoField(300_000_000) String name, long next) {}

    public record Page<T>(List<T> items) {}

    /** A service with what protobuf cannot carry beside what it can. */
    public interface Mixed {
        @SuppressWarnings("rawtypes")
        Page raw();

        <T> Page<T> generic(T value);

        Far far(Far f);
    }

    static Serializer protobuf() {
        return SerializerRegistry.load(
                        ClassAllowList.withDefaults()
                                .allowClass(P.class)
                                .allowClass(Bag.class)
                                .allowClass(Labels.class)
                                .allowClass(Far.class),
                        ReadLimits.defaults())
                .get("protobuf");
    }

    static byte[] write(Serializer s, Object value) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeArguments(new Object[] {value}, out);
        return out.toByteArray();
    }

    @Test
    void aSetOfCollidingRecordsStopsAtTheDeadlineInsteadOfHashingForMinutes() throws Exception {
        // Records hash as 31 * a + b here: every element below has hash 0, one bin of 60,000.
        P[] colliding = new P[60_000];
        for (int i = 0; i < colliding.length; i++) {
            colliding[i] = new P(i, -31 * i);
        }
        assertThat(colliding[7].hashCode()).isEqualTo(colliding[9].hashCode());
        Serializer s = protobuf();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeArguments(
                new Object[] {new Bag(new java.util.LinkedHashSet<>(List.of(colliding[0], colliding[1])))}, out);
        // The bytes of a Bag of all of them, built by hand: field 1, one P message each.
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (P p : colliding) {
            byte[] one = write(s, p);
            b.write(0x0A);
            b.write(one.length);
            b.writeBytes(one);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        long started = System.nanoTime();
        assertThatThrownBy(
                        () -> s.readArguments(ByteBuffer.wrap(b.toByteArray()), new Class<?>[] {Bag.class}, deadline))
                .isInstanceOf(ReadDeadlineException.class);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                .as("ms spent reading past a 100 ms deadline")
                .isLessThan(5_000);
    }

    @Test
    void aMapEntryWithoutAValueHasProtobufsDefaultNotNull() throws Exception {
        // labels { key: "k" } and no value, as protobuf writes an entry whose value is ""
        byte[] bytes = {0x0A, 3, 0x0A, 1, 'k'};
        Object[] read =
                protobuf().readArguments(ByteBuffer.wrap(bytes), new Class<?>[] {Labels.class}, Serializer.NO_DEADLINE);
        assertThat(((Labels) read[0]).labels()).containsEntry("k", "");
    }

    @Test
    void aPinnedNumberAbove2To28RoundTripsAndProtobufJavaAgrees() throws Exception {
        Serializer s = protobuf();
        Far far = new Far("there", 7);
        byte[] bytes = write(s, far);
        Object[] back = s.readArguments(ByteBuffer.wrap(bytes), new Class<?>[] {Far.class}, Serializer.NO_DEADLINE);
        assertThat(back[0]).isEqualTo(far);
        ProtoContract c = ProtoContract.of(Mixed.class);
        assertThat(c.proto()).contains("optional string name = 300000000;").contains("int64 next = 300000001;");
        Descriptors.FileDescriptor file = Descriptors.FileDescriptor.buildFrom(
                FileDescriptorProto.parseFrom(c.fileDescriptor()), new Descriptors.FileDescriptor[0]);
        DynamicMessage m = DynamicMessage.parseFrom(file.findMessageTypeByName("Far"), bytes);
        assertThat(m.getField(m.getDescriptorForType().findFieldByName("name"))).isEqualTo("there");
        assertThat(m.getField(m.getDescriptorForType().findFieldByName("next"))).isEqualTo(7L);
    }

    @Test
    void aRawGenericClassOrAMethodsTypeVariableIsNamedNotThrown() {
        ProtoContract c = ProtoContract.of(Mixed.class);
        assertThat(c.rpc("far")).isNotNull();
        assertThat(c.rpc("raw")).isNull();
        assertThat(c.rpc("generic")).isNull();
        assertThat(String.join("\n", c.problems())).contains("raw()").contains("generic(");
    }
}
