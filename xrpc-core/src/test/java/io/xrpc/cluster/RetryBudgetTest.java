package io.xrpc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    @Test
    void retriesStopAtHalfTheBucketAndAnswersPutTokensBack() {
        RetryBudget b = new RetryBudget(10, 0.5);
        for (int i = 0; i < 5; i++) {
            assertThat(b.trySpend())
                    .as("spend %d of a full bucket of 10", i + 1)
                    .isTrue();
        }
        assertThat(b.tokens()).isEqualTo(5.0);
        assertThat(b.trySpend()).as("at half").isFalse();
        assertThat(b.tokens()).as("a refusal takes nothing").isEqualTo(5.0);
        b.answered();
        assertThat(b.tokens()).isEqualTo(5.5);
        assertThat(b.trySpend()).isTrue();
        for (int i = 0; i < 100; i++) {
            b.answered();
        }
        assertThat(b.tokens()).as("never above the bucket's size").isEqualTo(10.0);
    }

    @Test
    void unlimitedAlwaysAllowsAndBadSizesAreRefusedNamingThem() {
        for (int i = 0; i < 10_000; i++) {
            assertThat(RetryBudget.UNLIMITED.trySpend()).isTrue();
        }
        assertThatThrownBy(() -> new RetryBudget(0, 0.1)).hasMessageContaining("maxTokens: 0");
        assertThatThrownBy(() -> new RetryBudget(10, 0)).hasMessageContaining("tokenRatio: 0.0");
        assertThatThrownBy(() -> new RetryBudget(10, Double.NaN)).hasMessageContaining("tokenRatio: NaN");
    }
}
