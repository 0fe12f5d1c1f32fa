package io.xrpc.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.benchmark.registry.SubsetSimulation;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The subsetting simulation in its short form: 100 consumers over 2,000 and 1,999 providers with
 * XRpc's own aperture and p2c. Every provider's expected share of the calls is the mean (within
 * rounding), the sampled share within the 15%, connections per consumer bounded, and a
 * join or a leave moves at most two connections per consumer.
 */
class SubsetSimulationTest {

    @Test
    @Timeout(120)
    void everyProviderStaysWithinFifteenPercentOfTheMeanAndConnectionsAreBounded() throws Exception {
        List<SubsetSimulation.Row> rows = SubsetSimulation.run(
                "--consumers", "100", "--providers", "2000,1999", "--calls", "2000", "--changes", "3");
        assertThat(rows).hasSize(2);
        for (SubsetSimulation.Row r : rows) {
            assertThat(r.expectedMaxOverMean()).as("expected share, busiest").isLessThan(1.001);
            assertThat(r.expectedMinOverMean()).as("expected share, least busy").isGreaterThan(0.999);
            // 2,000 sampled calls a provider: 2.2% one standard deviation, the max of 2,000 about 3.5 of them.
            assertThat(r.sampledMaxOverMean()).as("sampled share, busiest").isLessThan(1.15);
            assertThat(r.sampledMinOverMean()).as("sampled share, least busy").isGreaterThan(0.85);
            // 2,000 / 100 = 20 providers a consumer's slice (at least 16), plus at most two edges.
            assertThat(r.maxConnectionsPerConsumer()).isLessThanOrEqualTo(22);
            assertThat(r.movedPerJoin() / r.consumers()).isLessThanOrEqualTo(2);
            assertThat(r.movedPerLeave() / r.consumers()).isLessThanOrEqualTo(2);
            assertThat(r.randomSubsetMaxOverMean())
                    .as("random subsets of the same size, for contrast")
                    .isGreaterThan(1.15);
        }
    }
}
