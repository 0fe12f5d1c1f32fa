package io.xrpc.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import io.xrpc.serialize.hessian.HessianSerializerProvider;
import io.xrpc.serialize.kryo.KryoSerializerProvider;
import io.xrpc.testing.Canary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A failed or odd read must leave nothing behind that changes the next read on the same thread. */
class SerializerStateTest {

    /** A DTO with a generic field, so Kryo pushes generics state while reading it. */
    public static class Box {
        public List<Inner> items = new ArrayList<>();
        public String label;
    }

    public static class Inner {
        public Object payload;

        public Inner() {}

        Inner(Object payload) {
            this.payload = payload;
        }
    }

    private static ClassAllowList allow() {
        return ClassAllowList.withDefaults().allowClass(Box.class).allowClass(Inner.class);
    }

    private static byte[] write(Serializer s, Object... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeArguments(args, out);
        return out.toByteArray();
    }

    @Test
    void kryoStillReadsValidPayloadsAfterManyRefusals() throws Exception {
        Serializer kryo = new KryoSerializerProvider().create(allow(), ReadLimits.defaults());
        Box bad = new Box();
        bad.items.add(new Inner(new Canary()));
        byte[] refused = write(kryo, bad);
        Box good = new Box();
        good.items.add(new Inner("fine"));
        good.label = "ok";
        byte[] valid = write(kryo, good);
        for (int i = 0; i < 200; i++) {
            assertThatThrownBy(() -> kryo.readArguments(
                            new ByteArrayInputStream(refused), new Class<?>[] {Box.class}, Serializer.NO_DEADLINE))
                    .isInstanceOf(ClassNotAllowedException.class);
            Box read = (Box) kryo.readArguments(
                            new ByteArrayInputStream(valid), new Class<?>[] {Box.class}, Serializer.NO_DEADLINE)[0];
            assertThat(read.items).singleElement().extracting(in -> in.payload).isEqualTo("fine");
            assertThat(read.label).isEqualTo("ok");
        }
    }

    @Test
    void hessianDoesNotCarryUnreadBytesIntoTheNextMessage() throws Exception {
        Serializer hessian = new HessianSerializerProvider().create(allow(), ReadLimits.defaults());
        // One argument declared, two written: refused, and the second must not leak into the next read.
        byte[] withTrailer = write(hessian, "first", "smuggled");
        byte[] next = write(hessian, "second");
        assertThatThrownBy(() -> hessian.readArguments(
                        new ByteArrayInputStream(withTrailer), new Class<?>[] {String.class}, Serializer.NO_DEADLINE))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("left over");
        Object[] read = hessian.readArguments(
                new ByteArrayInputStream(next), new Class<?>[] {String.class}, Serializer.NO_DEADLINE);
        assertThat(read).containsExactly("second");
    }

    @Test
    void hessianRefusesTypeNamesWithoutAPackageThatAreNotBuiltIn() throws Exception {
        Serializer hessian = new HessianSerializerProvider().create(allow(), ReadLimits.defaults());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bytes);
        out.writeMapBegin("Evil");
        out.writeString("k");
        out.writeString("v");
        out.writeMapEnd();
        out.flush();
        assertThatThrownBy(() -> hessian.readArguments(
                        new ByteArrayInputStream(bytes.toByteArray()),
                        new Class<?>[] {Object.class},
                        Serializer.NO_DEADLINE))
                .isInstanceOf(ClassNotAllowedException.class)
                .hasMessageContaining("Evil");
    }
}
