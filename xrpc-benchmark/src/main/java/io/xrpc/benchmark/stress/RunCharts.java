package io.xrpc.benchmark.stress;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The report's charts drawn from a scenario's levels rather than per level: the latency
 * distribution, and the run's course over time (calls per second, latency percentiles, callers
 * under way, failed calls), each level labelled where it began.
 */
final class RunCharts {
    private RunCharts() {}

    /**
     * The share of calls in each latency bucket, a line per level: buckets spaced by a constant ratio
     * between the scenario's fastest and slowest call, so that every level is drawn on the same ones.
     */
    static void distribution(StringBuilder h, List<Level> levels) {
        List<Level> drawn = levels.stream().filter(Level::hasFullLatency).toList();
        if (drawn.isEmpty()) {
            return;
        }
        double low =
                Math.max(1, drawn.stream().mapToDouble(Level::minMicros).min().orElse(1));
        double high = Math.max(
                low * 2, drawn.stream().mapToDouble(Level::maxMicros).max().orElse(2));
        int buckets = 24;
        double ratio = Math.pow(high / low, 1.0 / buckets);
        List<String> categories = new ArrayList<>();
        for (int i = 1; i <= buckets; i++) {
            categories.add(SvgChart.number(low * Math.pow(ratio, i)));
        }
        SvgChart chart = new SvgChart("Latency distribution", "latency up to, microseconds", "% of calls", categories);
        boolean several = drawn.stream().map(Level::contender).distinct().count() > 1;
        int shade = 0;
        for (Level l : drawn) {
            Histogram hist = l.latencies();
            double[] share = new double[buckets];
            for (HistogramIterationValue v : hist.recordedValues()) {
                double micros = hist.highestEquivalentValue(v.getValueIteratedTo()) / 1e3;
                int i = (int) Math.floor(Math.log(Math.max(micros, low) / low) / Math.log(ratio));
                share[Math.max(0, Math.min(buckets - 1, i))] +=
                        100.0 * v.getCountAtValueIteratedTo() / hist.getTotalCount();
            }
            List<double[]> p = new ArrayList<>();
            for (int i = 0; i < buckets; i++) {
                p.add(new double[] {i, share[i]});
            }
            // A colour per line; with several contenders the second and later contenders' lines dashed.
            String col = SvgChart.COLOURS[shade++ % SvgChart.COLOURS.length];
            chart.add(new SvgChart.Series(
                    (several ? l.contender() + " " : "") + l.threads() + " threads",
                    col,
                    several && !l.contender().equals(drawn.get(0).contender()),
                    p));
        }
        h.append("<div class=\"panels\">").append(chart.render()).append("</div>\n");
    }

    /**
     * The run's course, seconds counted from the scenario's first point: calls per second (warm-up
     * dashed), latency percentiles, the callers under way and failed calls, each level labelled
     * where it began.
     */
    static void overTime(StringBuilder h, List<Level> levels, List<String> contenders, Map<String, String> colour) {
        long first = levels.stream()
                .flatMap(RunCharts::course)
                .mapToLong(Second::atMillis)
                .min()
                .orElse(-1);
        if (first < 0) {
            return;
        }
        long start = first - 1000; // a point is stamped as it ends, about a second after it began
        String x = "seconds since the scenario began";
        double end = levels.stream()
                        .flatMap(RunCharts::course)
                        .mapToLong(Second::atMillis)
                        .max()
                        .orElse(start)
                / 1.0;
        SvgChart calls = new SvgChart("Calls per second over the run (warm-up dashed)", x, "calls per second", null);
        SvgChart pct = new SvgChart("Latency percentiles over the run", x, "microseconds", null);
        SvgChart active = new SvgChart("Calls under way over the run", x, "callers in a call", null);
        SvgChart errs = new SvgChart("Failed calls over the run", x, "failed calls per point", null);
        boolean one = contenders.size() == 1;
        for (String c : contenders) {
            List<Level> mine =
                    levels.stream().filter(l -> l.contender().equals(c)).toList();
            String col = colour.get(c);
            String prefix = one ? "" : c + " ";
            calls.add(new SvgChart.Series(
                    prefix + "warm-up", col, true, line(mine, start, Level::warmup, Second::callsPerSecond, false)));
            calls.add(new SvgChart.Series(
                    prefix + "measured",
                    col,
                    false,
                    line(mine, start, Level::timeline, Second::callsPerSecond, false)));
            if (one) {
                String[] names = {"p50", "p90", "p99", "p99.9"};
                List<ToDoubleFunction<Second>> values =
                        List.of(Second::p50Micros, Second::p90Micros, Second::p99Micros, Second::p999Micros);
                for (int i = 0; i < names.length; i++) {
                    pct.add(new SvgChart.Series(
                            names[i],
                            SvgChart.COLOURS[i],
                            false,
                            line(mine, start, Level::timeline, values.get(i), true)));
                }
            } else {
                pct.add(new SvgChart.Series(
                        c + " p99", col, false, line(mine, start, Level::timeline, Second::p99Micros, true)));
                pct.add(new SvgChart.Series(
                        c + " p50", col, true, line(mine, start, Level::timeline, Second::p50Micros, true)));
            }
            // An older results.json has no callers count (0): left out as a latency is.
            active.add(new SvgChart.Series(
                    prefix + "callers", col, false, line(mine, start, Level::timeline, s -> s.active(), true)));
            errs.add(new SvgChart.Series(
                    prefix + "failed", col, false, line(mine, start, Level::timeline, s -> s.errors(), false)));
        }
        // Each level labelled where its first point (warm-up or measured) began; contenders that took
        // turns share one label, contenders measured one after another (--client inproc) get their own.
        List<double[]> begins = new ArrayList<>();
        for (Level l : levels) {
            course(l)
                    .mapToLong(Second::atMillis)
                    .min()
                    .ifPresent(t -> begins.add(new double[] {(t - start) / 1e3 - 1, l.threads()}));
        }
        begins.sort(Comparator.comparingDouble(b -> b[0]));
        List<double[]> marks = new ArrayList<>();
        for (double[] b : begins) {
            if (marks.stream().noneMatch(m -> m[1] == b[1] && Math.abs(m[0] - b[0]) < 60)) {
                marks.add(b);
            }
        }
        boolean open = levels.stream().anyMatch(l -> l.rate() > 0);
        h.append("<div class=\"panels\">");
        for (SvgChart chart : List.of(calls, pct, active, errs)) {
            chart.xRange(0, (end - start) / 1e3);
            marks.forEach(m -> chart.mark(Math.max(0, m[0]), (int) m[1] + (open ? " callers" : " thr")));
            if (!chart.isEmpty()) {
                h.append(chart.render());
            }
        }
        h.append("</div>\n<p class=\"note\">Each level is labelled where it began; its warm-up (dashed) comes first,"
                + " then its measured points. With several contenders their slices take turns.</p>\n");
    }

    /** A level's points in the order they ran: its warm-up, then its measured slices (either may be absent). */
    static Stream<Second> course(Level l) {
        return Stream.concat(
                l.warmup() == null ? Stream.empty() : l.warmup().stream(),
                l.timeline() == null ? Stream.empty() : l.timeline().stream());
    }

    /**
     * One line through the levels' points, broken between levels; with {@code latency}, points
     * without a successful call or without the value are left out.
     */
    private static List<double[]> line(
            List<Level> levels,
            long start,
            Function<Level, List<Second>> of,
            ToDoubleFunction<Second> value,
            boolean latency) {
        List<double[]> p = new ArrayList<>();
        for (Level l : levels) {
            List<Second> points = of.apply(l);
            if (points == null || points.isEmpty()) {
                continue;
            }
            if (!p.isEmpty()) {
                p.add(new double[] {0, Double.NaN}); // each level a stretch of its own
            }
            for (Second s : points) {
                double v = value.applyAsDouble(s);
                if (!latency || s.callsPerSecond() > 0 && v > 0) { // an older results.json has 0 for what it lacked
                    p.add(new double[] {(s.atMillis() - start) / 1e3, v});
                }
            }
        }
        return p;
    }
}
