package io.xrpc.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.server.RpcServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile protobuf: real bytes through grpc-java's transport to a provider, and straight into the
 * {@code protobuf} serializer where its limits are small enough to reach. Each is refused naming
 * what was wrong, before anything it claims is allocated; the provider serves on.
 */
@Timeout(60)
class GrpcHostileTest {
    /** A type that holds itself: nesting is bounded by the read limits, not by the type. */
    public interface Trees {
        Node depth(Node root);
    }

    public record Node(Node next, int value) {}

    static RpcServer server;
    static ManagedChannel channel;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new CatalogImpl())
                .service(Trees.class, root -> root)
                .build()
                .start();
        channel = GrpcChannels.to(server);
    }

    @AfterAll
    static void stop() throws Exception {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.close();
    }

    static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    static byte[] call(String fullMethod, byte[] request) {
        MethodDescriptor<byte[], byte[]> m = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullMethod)
                .setRequestMarshaller(RAW)
                .setResponseMarshaller(RAW)
                .build();
        return ClientCalls.blockingUnaryCall(
                channel, m, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
    }

    static void refused(String fullMethod, byte[] request, String says) {
        assertThatThrownBy(() -> call(fullMethod, request)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains(says);
        });
    }

    static final String SAVE = Catalog.class.getName() + "/save";
    static final String DEPTH = Trees.class.getName().replace('$', '.') + "/depth";

    /** Nested {@code Node}s, {@code levels} deep, as field 1 of each other. */
    static byte[] nested(int levels) {
        byte[] inner = new byte[0];
        for (int i = 0; i < levels; i++) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(0x0A);
            varint(b, inner.length);
            b.writeBytes(inner);
            inner = b.toByteArray();
        }
        return inner;
    }

    static void varint(ByteArrayOutputStream b, long v) {
        while ((v & ~0x7FL) != 0) {
            b.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        b.write((int) v);
    }

    @Test
    void aLengthThatClaimsMoreThanTheMessageIsRefusedBeforeAnythingIsAllocated() {
        // field 2 (sku), length-delimited, claiming 2 GiB - 1 with 3 bytes behind it.
        refused(
                SAVE,
                new byte[] {0x12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 'a', 'b', 'c'},
                "claims");
        assertThat(call(Catalog.class.getName() + "/touch", new byte[] {0x0A, 1, 'x'}))
                .isEmpty(); // serves on
    }

    @Test
    void nestingPastTheReadLimitIsRefusedAndWithinItAnswered() {
        refused(DEPTH, nested(ReadLimits.DEFAULT_MAX_DEPTH + 10), "nest deeper than");
        assertThat(call(DEPTH, nested(50))).isEqualTo(nested(50));
    }

    @Test
    void aTruncatedVarintAWrongWireTypeAndAGroupAreEachNamed() {
        refused(SAVE, new byte[] {0x08, (byte) 0x80}, "varint runs past the end");
        refused(SAVE, new byte[] {0x0D, 1, 2, 3, 4}, "arrived as wire type 5"); // id (int64) as fixed32
        refused(SAVE, new byte[] {(byte) 0xA3, 0x06}, "groups"); // field 100, a group start
    }

    /** The serializer with limits small enough to reach, allowing what Catalog exchanges. */
    static Serializer small() {
        return SerializerRegistry.load(
                        ClassAllowList.withDefaults().allowTypesOf(Catalog.class), ReadLimits.of(1_000, 16))
                .get("protobuf");
    }

    @Test
    void aClassOutsideTheAllowListIsNeverBuilt() {
        Serializer strict = SerializerRegistry.load(ClassAllowList.withDefaults(), ReadLimits.defaults())
                .get("protobuf");
        assertThatThrownBy(() -> strict.readArguments(
                        ByteBuffer.wrap(new byte[] {0x12, 1, 'x'}),
                        new Class<?>[] {Catalog.Item.class},
                        Serializer.NO_DEADLINE))
                .isInstanceOf(io.xrpc.serialize.ClassNotAllowedException.class)
                .hasMessageContaining(Catalog.Item.class.getName());
    }

    @Test
    void unknownFieldsAreSkippedAndCountedAgainstTheReadLimits() throws Exception {
        Serializer small = small();
        Class<?>[] types = {Catalog.Item.class};
        ByteArrayOutputStream few = new ByteArrayOutputStream();
        few.write(0x10 | 0x02); // field 2 (sku) "x"
        few.write(1);
        few.write('x');
        for (int i = 0; i < 10; i++) {
            few.write(new byte[] {(byte) 0xF8, 0x06, 0x01}); // field 111, varint 1: a newer client's
        }
        Object[] read = small.readArguments(ByteBuffer.wrap(few.toByteArray()), types, Serializer.NO_DEADLINE);
        assertThat(((Catalog.Item) read[0]).sku()).isEqualTo("x");
        ByteArrayOutputStream many = new ByteArrayOutputStream();
        for (int i = 0; i < 2_000; i++) {
            many.write(new byte[] {(byte) 0xF8, 0x06, 0x01});
        }
        assertThatThrownBy(
                        () -> small.readArguments(ByteBuffer.wrap(many.toByteArray()), types, Serializer.NO_DEADLINE))
                .isInstanceOf(PayloadLimitException.class)
                .hasMessageContaining("more than 1000 objects");
    }

    @Test
    void aHugeRepeatedFieldCostsWhatItsBytesDoAndStopsAtTheObjectLimit() {
        Serializer small = small();
        // field 4 (tags): 5,000 empty strings, two bytes each, and a packed run can hold no more than its bytes either.
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < 5_000; i++) {
            b.write(0x22);
            b.write(0);
        }
        assertThatThrownBy(() -> small.readArguments(
                        ByteBuffer.wrap(b.toByteArray()), new Class<?>[] {Catalog.Item.class}, Serializer.NO_DEADLINE))
                .isInstanceOf(PayloadLimitException.class)
                .hasMessageContaining("more than 1000 objects");
    }
}
