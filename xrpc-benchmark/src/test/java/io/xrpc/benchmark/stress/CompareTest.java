package io.xrpc.benchmark.stress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** Which earlier level a level of this run is compared with (--compare), and what the comparison concludes. */
class CompareTest {

    private static List<Second> points(double... callsPerSecond) {
        List<Second> p = new ArrayList<>();
        for (int i = 0; i < callsPerSecond.length; i++) {
            p.add(new Second(1_000L * i, callsPerSecond[i], 30, 0, 10, 20, 40, 50, 1));
        }
        return p;
    }

    private static Level level(String contender, int threads, double throughput, boolean steady, double... perSecond) {
        return new Level(
                contender,
                "getUser",
                threads,
                100,
                0,
                Map.of(),
                1,
                throughput,
                10,
                20,
                30,
                40,
                50,
                -1,
                -1,
                -1,
                -1,
                List.of(throughput),
                List.of(0L),
                points(perSecond),
                5,
                12,
                25,
                0,
                List.of(),
                3,
                0,
                steady,
                null,
                List.of());
    }

    private static Comparison.Before before(String contender, int threads, double throughput, double... perSecond) {
        return new Comparison.Before(
                contender, "getUser", threads, throughput, 10, 20, 30, 40, points(perSecond), true, List.of());
    }

    @Test
    void aLevelIsComparedWithTheSameContenderOrWithTheOnlyOneOnBothSides() {
        List<Comparison.Before> earlier = List.of(before("xrpc", 1, 900), before("xrpc", 32, 9_000));
        List<Level> renamed = List.of(level("xrpc-fory", 1, 1_000, true));
        assertThat(Comparison.match(renamed.get(0), earlier, renamed))
                .as("one contender each side: renamed")
                .isEqualTo(earlier.get(0));

        // Before: raw-netty of this run was drawn against xrpc's old numbers.
        List<Level> two = List.of(level("xrpc", 1, 1_000, true), level("raw-netty", 1, 2_000, true));
        assertThat(Comparison.match(two.get(0), earlier, two)).isEqualTo(earlier.get(0));
        assertThat(Comparison.match(two.get(1), earlier, two))
                .as("no raw-netty before")
                .isNull();
        assertThat(StressReport.comparison(two, earlier))
                .contains("| xrpc | getUser | 1 | 900 | 1000 | +11.1%")
                .doesNotContain("| raw-netty |");
    }

    @Test
    void aChangeWithinTheRunsOwnSpreadIsNoiseAndOneBeyondItIsNamed() {
        List<Comparison.Before> earlier = List.of(before("xrpc", 1, 1_000, 1_000, 1_010, 990, 1_005, 995));
        List<Level> same = List.of(level("xrpc", 1, 1_012, true, 1_015, 1_005, 1_020, 1_010, 1_010));
        Comparison.Row r = Comparison.rows(same, earlier).get(0);
        assertThat(r.change("calls/s").noise())
                .as("99%% interval of the difference")
                .isBetween(1.0, 3.0);
        assertThat(r.change("calls/s").beyondNoise()).isFalse();
        assertThat(r.verdict()).isEqualTo("within noise");

        List<Level> faster = List.of(level("xrpc", 1, 1_200, true, 1_200, 1_210, 1_190, 1_205, 1_195));
        Comparison.Row f = Comparison.rows(faster, earlier).get(0);
        assertThat(f.change("calls/s").beyondNoise()).isTrue();
        assertThat(f.verdict()).startsWith("calls/s better (*one JVM a side");
        assertThat(StressReport.comparison(faster, earlier))
                .contains("+20.0% ±")
                .contains("| calls/s better (*one JVM");

        // The same change in a run that never settled is flagged, not judged.
        List<Level> moving = List.of(level("xrpc", 1, 1_200, false, 900, 1_100, 1_300, 1_400, 1_500));
        assertThat(Comparison.rows(moving, earlier).get(0).verdict()).isEqualTo("not steady (this run): not judged");
        List<Comparison.Before> unrecorded =
                List.of(new Comparison.Before("xrpc", "getUser", 1, 1_000, 10, 20, 30, 40, List.of(), null, List.of()));
        assertThat(Comparison.rows(faster, unrecorded).get(0).verdict())
                .isEqualTo("not judged: the earlier run's results.json predates the warm-up rule");
    }

    /**
     * Two runs of one build that settled at different speeds in different JVMs (as seen here: 21k
     * and 26k calls/s at 8 threads): within one JVM each run is tight, so per-second noise calls
     * the difference a change; with three JVMs a side the spread between them is the noise.
     */
    @Test
    void withForksTheSpreadBetweenJvmsIsTheNoise() {
        List<Level.Fork> was = List.of(fork(21_000), fork(26_000), fork(23_000));
        List<Level.Fork> is = List.of(fork(25_500), fork(21_500), fork(24_000));
        Comparison.Before before = new Comparison.Before(
                "xrpc", "getUser", 8, 23_333, 10, 20, 30, 40, points(23_300, 23_350, 23_320, 23_360), true, was);
        Level after = new Level(
                "xrpc",
                "getUser",
                8,
                100,
                0,
                Map.of(),
                1,
                23_667,
                10,
                20,
                30,
                40,
                50,
                -1,
                -1,
                -1,
                -1,
                List.of(),
                List.of(),
                points(23_650, 23_700, 23_640, 23_680),
                5,
                12,
                25,
                0,
                List.of(),
                3,
                0,
                true,
                null,
                is);
        Comparison.Row r = Comparison.rows(List.of(after), List.of(before)).get(0);
        assertThat(r.change("calls/s").betweenJvms()).isTrue();
        assertThat(r.change("calls/s").noise()).isGreaterThan(10);
        assertThat(r.verdict()).isEqualTo("within noise");
    }

    private static Level.Fork fork(double throughput) {
        return new Level.Fork(throughput, 10, 20, 30, 40);
    }

    @Test
    void noiseNeedsTwoPointsASide() {
        assertThat(Comparison.noisePercent(new double[] {1}, new double[] {1, 2}, 1))
                .isNaN();
        assertThat(Comparison.noisePercent(new double[] {5, 5}, new double[] {5, 5}, 5))
                .as("a floor, not 0")
                .isEqualTo(Comparison.FLOOR);
        // Welch's t at 4 + 4 points of equal spread (df 6): 3.707 * sqrt(var/4 + var/4), var = 2/3 here.
        assertThat(Comparison.noisePercent(new double[] {99, 100, 101, 100}, new double[] {99, 100, 101, 100}, 100))
                .isCloseTo(3.707 * Math.sqrt(2.0 / 3 / 4 * 2), Offset.offset(0.01));
    }
}
