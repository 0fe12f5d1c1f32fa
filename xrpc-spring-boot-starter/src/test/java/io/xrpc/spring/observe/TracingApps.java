package io.xrpc.spring.observe;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.xrpc.client.ClientInterceptor;
import io.xrpc.common.Invocation;
import io.xrpc.spring.RpcReference;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.MDC;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** A provider and a consumer with Boot's OpenTelemetry tracing, each exporting its spans to memory. */
final class TracingApps {
    private TracingApps() {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(TracedImpl.class)
    static class Provider {
        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Caller.class)
    static class Consumer {
        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }

        /** Runs inside the client's observation (added after it): what a client-side log line would carry. */
        @Bean
        MdcRecorder mdcRecorder() {
            return new MdcRecorder();
        }

        @Bean
        OversizedBaggage oversizedBaggage() {
            return new OversizedBaggage();
        }
    }

    /**
     * When on, replaces the baggage the observation wrote with values over their limits: the W3C
     * {@code baggage} field over 8192, and the remote field {@code tenant} (which Micrometer sends
     * as an attachment of its own too) over 1024.
     */
    static final class OversizedBaggage implements ClientInterceptor {
        volatile boolean on;

        @Override
        public CompletableFuture<Object> intercept(Invocation invocation, Chain next) {
            if (on) {
                invocation.attachments().put("baggage", "tenant=" + "x".repeat(9000));
                invocation.attachments().put("tenant", "x".repeat(2000));
            }
            return next.proceed(invocation);
        }
    }

    static class Caller {
        @RpcReference
        Traced traced;
    }

    static final class MdcRecorder implements ClientInterceptor {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<Object> intercept(Invocation invocation, Chain next) {
            seen.add(MDC.get("traceId") + "|" + MDC.get("spanId"));
            return next.proceed(invocation);
        }
    }
}
