package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.model.UserService;
import io.xrpc.serialize.protobuf.ProtoContract;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The {@code .proto} grpc-java's benchmark contenders are generated from ({@code -Ppeers}) is what
 * XRpc derives from {@link UserService}, but for its Java options: so grpc-java's own server and
 * XRpc's gRPC side serve the same contract, and it cannot drift.
 */
class DerivedProtoTest {
    static final Path FILE =
            XrpcWalkthroughIT.ROOT.resolve("xrpc-benchmark/src/peers/proto/derived/user_service.proto");

    @Test
    void theGeneratedContendersProtoIsTheDerivedOne() throws Exception {
        String file = Files.readString(FILE);
        String withoutJavaOptions =
                file.replaceAll("\n// For grpc-java's code generator only[^\n]*\n(option java_[^\n]*\n)+", "");
        assertThat(withoutJavaOptions)
                .as("%s is what `xrpc proto %s` prints, with its java options", FILE, UserService.class.getName())
                .isEqualTo(ProtoContract.of(UserService.class).proto());
    }
}
