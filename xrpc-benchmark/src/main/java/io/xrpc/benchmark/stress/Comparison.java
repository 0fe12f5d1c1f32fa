package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code --compare}: each level of this run beside the same level of an earlier one, every change
 * with the noise it has to clear. The noise of a measure is the half-width of a 99% confidence
 * interval of the difference of its means in the two runs (Welch's t), in percent of the earlier
 * value, taken over the runs' callers' JVMs when both ran two or more ({@code --forks}), else over
 * their per-second points. The second misses what differs between one JVM and the next (what the
 * JIT made of the code), which on a small machine can be larger: a change is then marked as judged
 * on one JVM a side. A level that was not steady in either run is flagged, not judged: its numbers
 * measured a moving target.
 */
final class Comparison {
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Comparison() {}

    /**
     * What a previous run measured for one level: the before of a comparison.
     *
     * @param timeline its measured points (empty in a results.json without them)
     * @param steady   whether it was steady; null in a results.json of a version that did not say
     */
    record Before(
            String contender,
            String scenario,
            int threads,
            double throughput,
            double p50,
            double p90,
            double p99,
            double p999,
            List<Second> timeline,
            Boolean steady,
            List<Level.Fork> forks) {}

    /** The levels of a previous run's results.json (any version of it: only these fields are read). */
    static List<Before> read(Path resultsJson) throws Exception {
        JsonNode doc = JSON.readTree(resultsJson.toFile());
        JsonNode levels = doc == null ? null : doc.get("levels");
        if (levels == null || !levels.isArray()) {
            throw new IllegalArgumentException(
                    "--compare " + resultsJson + ": no levels (expected: a results.json" + " this tool wrote)");
        }
        List<Before> before = new ArrayList<>();
        for (JsonNode l : levels) {
            List<Second> timeline = l.path("timeline").isArray()
                    ? List.of(JSON.treeToValue(l.get("timeline"), Second[].class))
                    : List.of();
            before.add(new Before(
                    l.path("contender").asText(),
                    l.path("scenario").asText(),
                    l.path("threads").asInt(),
                    l.path("throughput").asDouble(),
                    l.path("p50Micros").asDouble(),
                    l.path("p90Micros").asDouble(),
                    l.path("p99Micros").asDouble(),
                    l.path("p999Micros").asDouble(),
                    timeline,
                    l.has("steady") ? l.get("steady").asBoolean() : null,
                    l.path("forks").isArray()
                            ? List.of(JSON.treeToValue(l.get("forks"), Level.Fork[].class))
                            : List.of()));
        }
        return before;
    }

    /**
     * The previous level {@code l} compares with: the same contender, scenario and threads; or,
     * when each run had one contender at that level (a renamed one: xrpc, then xrpc-fory), that one.
     */
    static Before match(Level l, List<Before> before, List<Level> results) {
        Before sameContender = null;
        List<Before> sameLevel = new ArrayList<>();
        for (Before b : before) {
            if (b.scenario().equals(l.scenario()) && b.threads() == l.threads()) {
                sameLevel.add(b);
                if (b.contender().equals(l.contender())) {
                    sameContender = b;
                }
            }
        }
        if (sameContender != null) {
            return sameContender;
        }
        long mine = results.stream()
                .filter(r -> r.scenario().equals(l.scenario()) && r.threads() == l.threads())
                .count();
        return sameLevel.size() == 1 && mine == 1 ? sameLevel.get(0) : null;
    }

    /**
     * One measure before and after.
     *
     * @param noise the change that noise alone explains, in percent (NaN when either run has fewer
     *              than two points to tell it from)
     */
    record Change(
            String measure, double before, double after, double noise, boolean higherIsBetter, boolean betweenJvms) {
        double percent() {
            return before > 0 ? (after - before) / before * 100 : Double.NaN;
        }

        /** Whether the change is larger than its noise (false when either is unknown). */
        boolean beyondNoise() {
            return !Double.isNaN(percent()) && !Double.isNaN(noise) && Math.abs(percent()) > noise;
        }

        boolean better() {
            return higherIsBetter ? percent() > 0 : percent() < 0;
        }

        /** {@code +3.1% ±6.2}: the change and its noise. */
        String text() {
            if (Double.isNaN(percent())) {
                return "-";
            }
            return String.format(Locale.ROOT, "%+.1f%%", percent())
                    + (Double.isNaN(noise)
                            ? ""
                            : String.format(Locale.ROOT, " ±%.1f", noise) + (betweenJvms ? "" : "*"));
        }
    }

    /** One level compared. */
    record Row(Level after, Before before, List<Change> changes) {
        Change change(String measure) {
            return changes.stream()
                    .filter(c -> c.measure().equals(measure))
                    .findFirst()
                    .orElseThrow();
        }

        /** Whether both runs were steady at this level (an unrecorded before counts as not known to be). */
        boolean steady() {
            return after.wasSteady() && Boolean.TRUE.equals(before.steady());
        }

        /**
         * What the comparison concludes: a level not steady in either run is not judged; otherwise
         * the measures that changed by more than their noise, or that none did.
         */
        String verdict() {
            if (!steady()) {
                if (before.steady() == null || after.steady() == null) {
                    return "not judged: " + (before.steady() == null ? "the earlier" : "this") + " run's results.json"
                            + " predates the warm-up rule";
                }
                boolean wasNot = !Boolean.TRUE.equals(before.steady());
                String which = wasNot && !after.wasSteady()
                        ? "both runs"
                        : !after.wasSteady() ? "this run" : "the earlier run";
                return "not steady (" + which + "): not judged";
            }
            List<String> moved = changes.stream()
                    .filter(Change::beyondNoise)
                    .map(c -> c.measure() + " " + (c.better() ? "better" : "worse"))
                    .toList();
            if (moved.isEmpty()) {
                return changes.stream().anyMatch(c -> Double.isNaN(c.noise())) ? "no noise known" : "within noise";
            }
            return String.join(", ", moved)
                    + (changes.get(0).betweenJvms()
                            ? ""
                            : " (*one JVM a side: the spread between JVMs is not in this noise; --forks 3 measures it)");
        }
    }

    /** The levels of {@code results} that have a before, compared. */
    static List<Row> rows(List<Level> results, List<Before> before) {
        List<Row> rows = new ArrayList<>();
        for (Level l : results) {
            Before b = match(l, before, results);
            if (b == null) {
                continue;
            }
            List<Second> now = l.timeline() == null ? List.of() : l.timeline();
            List<Level.Fork> forksNow = l.forks() == null ? List.of() : l.forks();
            boolean jvms = forksNow.size() > 1 && b.forks().size() > 1;
            rows.add(new Row(
                    l,
                    b,
                    List.of(
                            change(
                                    "calls/s",
                                    b.throughput(),
                                    l.throughput(),
                                    jvms,
                                    b,
                                    l,
                                    Second::callsPerSecond,
                                    Level.Fork::throughput,
                                    true),
                            change(
                                    "p50",
                                    b.p50(),
                                    l.p50Micros(),
                                    jvms,
                                    b,
                                    l,
                                    Second::p50Micros,
                                    Level.Fork::p50Micros,
                                    false),
                            change(
                                    "p90",
                                    b.p90(),
                                    l.p90Micros(),
                                    jvms,
                                    b,
                                    l,
                                    Second::p90Micros,
                                    Level.Fork::p90Micros,
                                    false),
                            change(
                                    "p99",
                                    b.p99(),
                                    l.p99Micros(),
                                    jvms,
                                    b,
                                    l,
                                    Second::p99Micros,
                                    Level.Fork::p99Micros,
                                    false),
                            change(
                                    "p99.9",
                                    b.p999(),
                                    l.p999Micros(),
                                    jvms,
                                    b,
                                    l,
                                    Second::p999Micros,
                                    Level.Fork::p999Micros,
                                    false))));
        }
        return rows;
    }

    /**
     * One measure's change; its noise from the two runs' forks when both have two or more (the
     * spread between JVMs), or else from their per-second points (the spread within one JVM).
     */
    private static Change change(
            String measure,
            double before,
            double after,
            boolean betweenJvms,
            Before was,
            Level is,
            ToDoubleFunction<Second> perSecond,
            ToDoubleFunction<Level.Fork> perFork,
            boolean higherIsBetter) {
        double[] a;
        double[] b;
        if (betweenJvms) {
            // A fork without a successful call has no latency.
            a = was.forks().stream()
                    .filter(f -> higherIsBetter || f.throughput() > 0)
                    .mapToDouble(perFork)
                    .toArray();
            b = is.forks().stream()
                    .filter(f -> higherIsBetter || f.throughput() > 0)
                    .mapToDouble(perFork)
                    .toArray();
        } else {
            a = values(was.timeline(), perSecond, !higherIsBetter);
            b = values(is.timeline() == null ? List.of() : is.timeline(), perSecond, !higherIsBetter);
        }
        return new Change(measure, before, after, noisePercent(a, b, before), higherIsBetter, betweenJvms);
    }

    /** A point with no answered call has no latency; an older results.json has no such percentile (0). */
    private static double[] values(List<Second> points, ToDoubleFunction<Second> value, boolean latency) {
        return points.stream()
                .filter(s -> !latency || s.callsPerSecond() > 0)
                .mapToDouble(value)
                .filter(v -> !latency || v > 0)
                .toArray();
    }

    /**
     * The least noise stated, in percent: latencies are recorded to three significant digits, and a
     * change under this is never named.
     */
    static final double FLOOR = 1;

    /**
     * The half-width of the 99% confidence interval of {@code mean(b) - mean(a)} (Welch), in percent
     * of {@code reference}; NaN with fewer than two values on either side.
     */
    static double noisePercent(double[] a, double[] b, double reference) {
        if (a.length < 2 || b.length < 2 || !(reference > 0)) {
            return Double.NaN;
        }
        double va = variance(a) / a.length;
        double vb = variance(b) / b.length;
        double se = Math.sqrt(va + vb);
        if (se == 0) {
            return FLOOR; // identical values: a histogram's bucket, not a measurement of no noise
        }
        double df = (va + vb) * (va + vb) / (va * va / (a.length - 1) + vb * vb / (b.length - 1));
        return Math.max(FLOOR, t99(df) * se / reference * 100);
    }

    private static double variance(double[] x) {
        double mean = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= x.length;
        double sum = 0;
        for (double v : x) {
            sum += (v - mean) * (v - mean);
        }
        return sum / (x.length - 1);
    }

    /** Degrees of freedom and Student's t at 99.5% (a two-sided 99% interval). */
    private static final double[][] T99 = {
        {1, 63.657},
        {2, 9.925},
        {3, 5.841},
        {4, 4.604},
        {5, 4.032},
        {6, 3.707},
        {7, 3.499},
        {8, 3.355},
        {9, 3.250},
        {10, 3.169},
        {12, 3.055},
        {15, 2.947},
        {20, 2.845},
        {30, 2.750},
        {60, 2.660},
        {120, 2.617}
    };

    /** Student's t for a two-sided 99% interval at {@code df} (rounded down to the table's, so never narrower). */
    static double t99(double df) {
        double t = T99[0][1];
        for (double[] row : T99) {
            if (row[0] <= df) {
                t = row[1];
            }
        }
        return df > 120 ? 2.576 : t;
    }
}
