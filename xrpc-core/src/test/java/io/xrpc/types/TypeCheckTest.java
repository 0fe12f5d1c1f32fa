package io.xrpc.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.xrpc.client.RpcClient;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.config.ServiceOptions;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializerRegistry;
import io.xrpc.serialize.TypeCheck;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CapturedErr;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A type a serializer cannot carry fails the export or reference, not the first call. */
class TypeCheckTest {
    /** Kryo reaches Pattern through its private fields, which java.base does not open. */
    public record Rule(String name, Pattern pattern) {}

    public interface Rules {
        Rule rule(String name);
    }

    /** A declared exception whose field kryo cannot carry. */
    public static class RuleException extends Exception {
        private static final long serialVersionUID = 1L;
        private final Pattern offending;

        public RuleException(Pattern offending) {
            super("bad rule " + offending);
            this.offending = offending;
        }

        public Pattern offending() {
            return offending;
        }
    }

    public interface Checker {
        boolean check(String text) throws RuleException;
    }

    /**
     * The fields of a declared exception travel as arguments do: a serializer that cannot carry
     * one is named at start-up, as for a parameter (before, the field was dropped on the first
     * exception, without a word).
     */
    @Test
    void aDeclaredExceptionsFieldsAreCheckedLikeArguments() {
        SerializerRegistry serializers = SerializerRegistry.load(
                ClassAllowList.withDefaults().allowTypesOf(Checker.class), ReadLimits.defaults());
        assertThat(TypeCheck.problems(Checker.class, serializers.get("kryo")))
                .singleElement()
                .asString()
                .contains("kryo cannot carry java.util.regex.Pattern", Checker.class.getName() + "#check");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kryo", "hessian", "protostuff", "fory", "json", "jackson", "jackson-plain"})
    void everyTypeOfTheMatrixPassesTheCheck(String serializer) {
        ClassAllowList list =
                ClassAllowList.withDefaults().allowTypesOf(CatalogService.class).allowTypesOf(Inventory.class);
        SerializerRegistry serializers = SerializerRegistry.load(list, ReadLimits.defaults());
        assertThat(TypeCheck.problems(CatalogService.class, serializers.get(serializer)))
                .isEmpty();
        assertThat(TypeCheck.problems(Inventory.class, serializers.get(serializer)))
                .isEmpty();
    }

    @Test
    void aReferenceWhoseSerializerCannotCarryATypeFailsNamingMethodTypeAndSerializer() {
        try (RpcClient client = RpcClient.builder().build()) {
            assertThatThrownBy(() -> client.proxy(
                            Rules.class,
                            ReferenceOptions.builder()
                                    .address("127.0.0.1:1")
                                    .serializer("kryo")
                                    .build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("kryo cannot carry java.util.regex.Pattern")
                    .hasMessageContaining(Rules.class.getName() + "#rule");
        }
        try (RpcClient client =
                RpcClient.builder().typeCheck(TypeCheck.Mode.WARN).build()) {
            assertThat(client.proxy(
                            Rules.class,
                            ReferenceOptions.builder()
                                    .address("127.0.0.1:1")
                                    .serializer("kryo")
                                    .build()))
                    .isNotNull();
        }
    }

    @Test
    void anExportThatNamesItsSerializersFailsTooAndOneThatTakesAnyOnlyWarns() {
        RpcServer server = RpcServer.builder().host("127.0.0.1").port(0).build();
        try (CapturedErr err = new CapturedErr()) {
            assertThatThrownBy(() -> server.export(
                            Rules.class,
                            name -> null,
                            ServiceOptions.builder().serializers("kryo").build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("kryo cannot carry java.util.regex.Pattern");
            assertThat(server.export(Rules.class, name -> null, ServiceOptions.defaults()))
                    .isNotNull();
            assertThat(err.text())
                    .contains("Exporting " + Rules.class.getName(), "kryo cannot carry java.util.regex.Pattern");
        } finally {
            server.close();
        }
    }
}
