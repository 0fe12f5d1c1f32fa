package io.xrpc.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.server.RpcServer;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The interceptors without Spring, on a real server and client, with handlers and conventions
 * that throw: calls keep their outcome, and every observation that started is stopped (no
 * {@code .active} entry left behind, no scope left current on the calling thread).
 */
@Timeout(60)
class ObservationInterceptorTest {
    public interface Echo {
        String echo(String s);
    }

    private static final class EchoImpl implements Echo {
        @Override
        public String echo(String s) {
            if (s.equals("fail")) {
                throw new IllegalArgumentException("fail");
            }
            return s;
        }
    }

    /** A convention that throws once the status is known, that is when the observation stops. */
    private static final class ThrowsAtStop extends DefaultXrpcClientObservationConvention {
        @Override
        public KeyValues getLowCardinalityKeyValues(XrpcClientContext context) {
            if (context.getStatus() != null) {
                throw new IllegalStateException("a broken convention");
            }
            return super.getLowCardinalityKeyValues(context);
        }
    }

    /** A handler that throws where it is told of an error and where a scope opens. */
    private static final class Broken implements ObservationHandler<Observation.Context> {
        @Override
        public void onError(Observation.Context context) {
            throw new IllegalStateException("a broken handler: onError");
        }

        @Override
        public void onScopeOpened(Observation.Context context) {
            throw new IllegalStateException("a broken handler: onScopeOpened");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void throwingConventionsAndHandlersNeitherChangeCallsNorLeaveObservationsRunning() {
        MeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        observations
                .observationConfig()
                .observationHandler(new DefaultMeterObservationHandler(meters))
                .observationHandler(new Broken());
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .interceptor(new ObservationServerInterceptor(observations, null))
                        .service(Echo.class, new EchoImpl())
                        .build()
                        .start();
                RpcClient client = RpcClient.builder()
                        .interceptor(new ObservationClientInterceptor(observations, new ThrowsAtStop()))
                        .build()) {
            Echo echo = client.proxy(
                    Echo.class,
                    ReferenceOptions.builder().address(server.endpoint()).build());

            assertThat(echo.echo("hi")).isEqualTo("hi");
            assertThatThrownBy(() -> echo.echo("fail"))
                    .isInstanceOfSatisfying(
                            RpcException.class, e -> assertThat(e.status()).isEqualTo(RpcStatus.APPLICATION_ERROR));

            assertThat(observations.getCurrentObservationScope())
                    .as("no scope left on the caller's thread")
                    .isNull();
            // The client's convention failed at stop: the default's tags stood in, and both stopped.
            assertThat(meters.get("xrpc.client.calls")
                            .tag("status", "OK")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get("xrpc.client.calls")
                            .tag("status", "APPLICATION_ERROR")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get("xrpc.client.calls.active").longTaskTimer().activeTasks())
                    .isZero();
            // The server's observation of the failed call stopped though recording its error threw.
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(meters.get("xrpc.server.calls")
                                .tag("status", "APPLICATION_ERROR")
                                .timer()
                                .count())
                        .isEqualTo(1);
                assertThat(meters.get("xrpc.server.calls.active")
                                .longTaskTimer()
                                .activeTasks())
                        .isZero();
            });
        }
    }
}
