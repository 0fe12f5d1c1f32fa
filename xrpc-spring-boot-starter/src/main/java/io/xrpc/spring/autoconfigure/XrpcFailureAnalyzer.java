package io.xrpc.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Spring Boot's start-up failure report for an {@link XrpcStartupException}, however deep it is nested. */
final class XrpcFailureAnalyzer extends AbstractFailureAnalyzer<XrpcStartupException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, XrpcStartupException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
