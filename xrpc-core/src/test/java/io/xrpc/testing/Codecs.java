package io.xrpc.testing;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Every built-in serializer with and without gzip, for {@code @MethodSource(Codecs.ALL)}. */
public final class Codecs {
    public static final String ALL = "io.xrpc.testing.Codecs#serializersAndCompressors";
    /**
     * {@link #ALL}, the json serializer of generic invocation, and a custom serializer through the
     * SPI ({@link JacksonSerializerProvider}).
     */
    public static final String ALL_AND_CUSTOM = "io.xrpc.testing.Codecs#serializersAndCompressorsAndCustom";

    /** The built-in serializers' wire ids (docs/PROTOCOL.md), for tests that write frames by hand. */
    public static final byte KRYO_ID = 1;

    public static final byte HESSIAN_ID = 2;
    public static final byte PROTOSTUFF_ID = 3;
    public static final byte FORY_ID = 4;

    private Codecs() {}

    public static Stream<Arguments> serializersAndCompressors() {
        return Stream.of("kryo", "hessian", "protostuff", "fory")
                .flatMap(s -> Stream.of(Arguments.of(s, "none"), Arguments.of(s, "gzip")));
    }

    public static Stream<Arguments> serializersAndCompressorsAndCustom() {
        return Stream.concat(
                serializersAndCompressors(),
                Stream.of(
                        Arguments.of("json", "none"),
                        Arguments.of("json", "gzip"),
                        Arguments.of(JacksonSerializerProvider.NAME, "none"),
                        Arguments.of(JacksonSerializerProvider.NAME, "gzip")));
    }
}
