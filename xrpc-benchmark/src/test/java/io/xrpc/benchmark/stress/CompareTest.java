package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which earlier level a level of this run is compared with (--compare). */
class CompareTest {

    private static Level level(String contender, int threads, double throughput) {
        return new Level(contender, "getUser", threads, 100, 0, Map.of(), 1, throughput, 10, 20, 30, 40, 50, -1, -1,
                -1, -1, List.of(throughput), List.of(0L), List.of());
    }

    private static HtmlReport.Before before(String contender, int threads, double throughput) {
        return new HtmlReport.Before(contender, "getUser", threads, throughput, 10, 20, 30, 40);
    }

    @Test
    void aLevelIsComparedWithTheSameContenderOrWithTheOnlyOneOnBothSides() {
        List<HtmlReport.Before> earlier = List.of(before("xrpc", 1, 900), before("xrpc", 32, 9_000));
        List<Level> renamed = List.of(level("xrpc-fory", 1, 1_000));
        assertThat(HtmlReport.match(renamed.get(0), earlier, renamed)).as("one contender each side: renamed")
                .isEqualTo(earlier.get(0));

        // Before: raw-netty of this run was drawn against xrpc's old numbers.
        List<Level> two = List.of(level("xrpc", 1, 1_000), level("raw-netty", 1, 2_000));
        assertThat(HtmlReport.match(two.get(0), earlier, two)).isEqualTo(earlier.get(0));
        assertThat(HtmlReport.match(two.get(1), earlier, two)).as("no raw-netty before").isNull();
        assertThat(StressReport.comparison(two, earlier)).contains("| xrpc | getUser | 1 | 900 | 1000 | +11.1%")
                .doesNotContain("| raw-netty |");
    }
}
