package io.xrpc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuickstartDemoTest {
    @Test
    void demoRunsToCompletionWithEveryCallBehaving() {
        assertThat(QuickstartDemo.run()).isTrue();
    }
}
