package io.xrpc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DemoTest {
    @Test
    void springBootDemoRunsToCompletionWithEveryCallBehaving() {
        assertThat(Demo.run()).isTrue();
    }
}
