package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.xrpc.registry.RegistryConfig;
import java.awt.Color;
import java.awt.Font;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * A run's results as results.json, results.md (ratios to raw Netty in the same run, and with
 * {@code --compare} each level before and after), results.png and report.html ({@link HtmlReport}).
 */
final class StressReport {
    private StressReport() {}

    static void write(Path out, Map<String, Object> header, List<Level> results, Path compare) throws Exception {
        List<Comparison.Before> before = compare == null ? null : Comparison.read(compare);
        Files.createDirectories(out);
        Map<String, Object> doc = new LinkedHashMap<>(header);
        if (compare != null) {
            doc.put("comparedWith", compare.toAbsolutePath().toString());
        }
        doc.put("levels", results);
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(out.resolve("results.json").toFile(), doc);
        Files.writeString(
                out.resolve("results.md"),
                markdown(results) + (before == null ? "" : "\n" + comparison(results, before)),
                StandardCharsets.UTF_8);
        chart(out.resolve("results"), results);
        Files.writeString(
                out.resolve("report.html"),
                HtmlReport.render(
                        doc.entrySet().stream()
                                .filter(e -> !e.getKey().equals("levels"))
                                .collect(LinkedHashMap::new, (m, e) -> m.put(e.getKey(), e.getValue()), Map::putAll),
                        results,
                        before),
                StandardCharsets.UTF_8);
        System.out.print("\n" + console(results));
        System.out.println("results: " + out.toAbsolutePath().resolve("results.{json,md,png}") + " and "
                + out.toAbsolutePath().resolve("report.html"));
    }

    /** The reports of an earlier run's results.json, written again (by this version of the tool) into {@code out}. */
    static void rewrite(Path resultsJson, Path out, Path compare) throws Exception {
        ObjectMapper json = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        JsonNode doc = json.readTree(resultsJson.toFile());
        Map<String, Object> header = new LinkedHashMap<>();
        if (doc == null || !doc.path("levels").isArray()) {
            throw new IllegalArgumentException(
                    "--report-from " + resultsJson + ": no levels (expected: a results.json" + " this tool wrote)");
        }
        doc.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("levels")
                    && !e.getKey().equals("comparedWith")
                    && e.getValue().isValueNode()) {
                // A results.json of an earlier version may hold a registry password in its target.
                header.put(
                        e.getKey(),
                        e.getKey().equals("target")
                                ? RegistryConfig.mask(e.getValue().asText())
                                : e.getValue().asText());
            }
        });
        List<Level> levels = new ArrayList<>();
        for (JsonNode l : doc.get("levels")) {
            levels.add(json.treeToValue(l, Level.class));
        }
        write(out, header, levels, compare);
    }

    /** Each level beside the previous run's: throughput and every percentile, the change with its noise, a verdict. */
    static String comparison(List<Level> results, List<Comparison.Before> before) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "contender",
                "scenario",
                "threads",
                "calls/s before",
                "after",
                "change ±noise",
                "p50 us before",
                "after",
                "change ±noise",
                "p90 change",
                "p99 us before",
                "after",
                "change ±noise",
                "p99.9 change",
                "verdict"));
        for (Comparison.Row r : Comparison.rows(results, before)) {
            Level l = r.after();
            Comparison.Before b = r.before();
            rows.add(List.of(
                    l.contender(),
                    l.scenario(),
                    Integer.toString(l.threads()),
                    f0(b.throughput()),
                    f0(l.throughput()),
                    r.change("calls/s").text(),
                    f1(b.p50()),
                    f1(l.p50Micros()),
                    r.change("p50").text(),
                    r.change("p90").text(),
                    f1(b.p99()),
                    f1(l.p99Micros()),
                    r.change("p99").text(),
                    r.change("p99.9").text(),
                    r.verdict()));
        }
        return table(rows, false) + "\nchange ±noise: the change in percent of before, and the half-width of a 99%"
                + " confidence interval of the difference between the runs, from their callers' JVMs when both ran"
                + " --forks 2 or more, else from their per-second values (marked *: the spread between JVMs is then"
                + " not in it). A change beyond its noise is named in the verdict; a level not steady in either run"
                + " is not judged.\n";
    }

    /**
     * The table: each level's count, errors, throughput and latency summary, how it warmed up, and
     * where the run has them, ratios to raw Netty and the JVMs' cost per call; columns that no
     * level has a value for are left out.
     */
    static String markdown(List<Level> results) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "contender",
                "scenario",
                "threads",
                "rate asked /s",
                "warm-up s",
                "steady",
                "OK",
                "KO",
                "calls/s",
                "vs raw (rounds)",
                "min us",
                "mean us",
                "p50 us",
                "vs raw",
                "p90 us",
                "p95 us",
                "p99 us",
                "p99.9 us",
                "max us",
                "provider CPU us/call",
                "vs raw",
                "client CPU us/call",
                "provider B/call",
                "vs raw",
                "client B/call"));
        for (Level l : results) {
            Level base = results.stream()
                    .filter(b -> b.contender().equals(HtmlReport.BASELINE)
                            && b.scenario().equals(l.scenario())
                            && b.threads() == l.threads())
                    .findFirst()
                    .orElse(null);
            boolean other = base != null && base != l;
            boolean any = l.hasLatency();
            boolean full = l.hasFullLatency();
            rows.add(List.of(
                    l.contender(),
                    l.scenario(),
                    Integer.toString(l.threads()),
                    l.rate() > 0 ? f0(l.rate()) : "-",
                    l.steady() == null ? "-" : f1(l.warmupSeconds()),
                    l.steadyText(),
                    Long.toString(l.calls()),
                    Long.toString(l.errorCount()),
                    f0(l.throughput()),
                    other && base.throughput() > 0 ? ratio(l, base) : "-",
                    full ? f1(l.minMicros()) : "-",
                    full ? f1(l.meanMicros()) : "-",
                    any ? f1(l.p50Micros()) : "-",
                    other && any && base.calls() > 0
                            ? String.format(Locale.ROOT, "%.2fx", l.p50Micros() / base.p50Micros())
                            : "-",
                    any ? f1(l.p90Micros()) : "-",
                    full ? f1(l.p95Micros()) : "-",
                    any ? f1(l.p99Micros()) : "-",
                    any ? f1(l.p999Micros()) : "-",
                    any ? f1(l.maxMicros()) : "-",
                    cpu(l.providerCpuMicrosPerCall()),
                    !other || l.providerCpuMicrosPerCall() < 0 || base.providerCpuMicrosPerCall() <= 0
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.2fx",
                                    l.providerCpuMicrosPerCall() / base.providerCpuMicrosPerCall()),
                    cpu(l.clientCpuMicrosPerCall()),
                    bytes(l.providerAllocBytesPerCall()),
                    !other || l.providerAllocBytesPerCall() < 0 || base.providerAllocBytesPerCall() <= 0
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.2fx",
                                    l.providerAllocBytesPerCall() / base.providerAllocBytesPerCall()),
                    bytes(l.clientAllocBytesPerCall())));
        }
        return table(rows, true);
    }

    /** A markdown table of {@code rows} (the first is the header), numbers right-aligned; {@code drop}: without all-"-" columns. */
    static String table(List<List<String>> rows, boolean drop) {
        int width = rows.get(0).size();
        List<Integer> keep = new ArrayList<>();
        for (int c = 0; c < width; c++) {
            int col = c;
            if (!drop
                    || rows.size() == 1
                    || rows.stream().skip(1).anyMatch(r -> !r.get(col).equals("-"))) {
                keep.add(c);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < rows.size(); i++) {
            List<String> r = rows.get(i);
            sb.append('|');
            keep.forEach(c -> sb.append(' ').append(r.get(c)).append(" |"));
            sb.append('\n');
            if (i == 0) {
                sb.append('|');
                keep.forEach(c -> sb.append(c < 2 || c == width - 1 && !drop ? "---|" : "---:|"));
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * The console's last words: a row per level, aligned, with what a reader checks first (throughput,
     * p50, p99, errors, whether it was steady).
     */
    static String console(List<Level> results) {
        StringBuilder sb = new StringBuilder(String.format(
                Locale.ROOT,
                "%-16s %-12s %7s %11s %10s %10s %8s  %s%n",
                "contender",
                "scenario",
                "threads",
                "calls/s",
                "p50 us",
                "p99 us",
                "errors",
                "steady"));
        for (Level l : results) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%-16s %-12s %7d %11.0f %10.1f %10.1f %8d  %s%n",
                    l.contender(),
                    l.scenario(),
                    l.threads(),
                    l.throughput(),
                    l.p50Micros(),
                    l.p99Micros(),
                    l.errorCount(),
                    l.steadyText()
                            + (l.steady() != null && !l.wasSteady()
                                    ? String.format(Locale.ROOT, ", warmed %.0f s", l.warmupSeconds())
                                    : "")));
        }
        return sb.toString();
    }

    private static String f0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /**
     * Throughput over raw Netty's; after an interleaved run, with the lowest and highest ratio of
     * one round's slices (with --forks, of each fork's slice of a round), which shows how far the machine's drift
     * (and with --forks, the difference between JVMs) could move it.
     */
    private static String ratio(Level l, Level base) {
        String total = String.format(Locale.ROOT, "%.2fx", l.throughput() / base.throughput());
        List<Double> mine = l.roundThroughputs();
        List<Double> theirs = base.roundThroughputs();
        if (l == base || mine == null || theirs == null || mine.size() < 2 || mine.size() != theirs.size()) {
            return total;
        }
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int i = 0; i < mine.size(); i++) {
            if (!(theirs.get(i) > 0)) {
                return total; // a round in which the baseline made no call has no ratio
            }
            double r = mine.get(i) / theirs.get(i);
            low = Math.min(low, r);
            high = Math.max(high, r);
        }
        return String.format(Locale.ROOT, "%s (%.2f-%.2f)", total, low, high);
    }

    private static String bytes(double perCall) {
        return perCall < 0 ? "-" : String.format(Locale.ROOT, "%.0f", perCall);
    }

    private static String cpu(double micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.1f", micros);
    }

    /**
     * {@code <file>.png}: small multiples, a row per scenario of throughput and p99 against caller
     * threads, one line per contender in colours that stay apart.
     */
    static void chart(Path file, List<Level> results) throws Exception {
        List<String> scenarios =
                results.stream().map(Level::scenario).distinct().toList();
        List<String> contenders =
                results.stream().map(Level::contender).distinct().toList();
        List<Chart<?, ?>> charts = new ArrayList<>();
        for (String scenario : scenarios) {
            boolean log = results.stream().mapToInt(Level::threads).max().orElse(1)
                    > 8 * results.stream().mapToInt(Level::threads).min().orElse(1);
            String threadsAxis = log ? "caller threads (log scale)" : "caller threads";
            XYChart throughput = new XYChartBuilder()
                    .width(660)
                    .height(360)
                    .title(scenario + ": throughput")
                    .xAxisTitle(threadsAxis)
                    .yAxisTitle("calls per second")
                    .build();
            XYChart p99 = new XYChartBuilder()
                    .width(660)
                    .height(360)
                    .title(scenario + ": p99 latency")
                    .xAxisTitle(threadsAxis)
                    .yAxisTitle("microseconds")
                    .build();
            for (XYChart c : List.of(throughput, p99)) {
                c.getStyler()
                        .setSeriesColors(contenders.stream()
                                .map(n ->
                                        Color.decode(SvgChart.COLOURS[contenders.indexOf(n) % SvgChart.COLOURS.length]))
                                .toArray(Color[]::new));
                c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
                c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
                c.getStyler().setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                c.getStyler().setChartBackgroundColor(Color.WHITE);
                c.getStyler().setXAxisLogarithmic(log);
                c.getStyler().setYAxisDecimalPattern("#,###");
                c.getStyler().setYAxisMin(0.0); // from zero, so that a small difference does not look steep
                c.getStyler().setXAxisDecimalPattern("#");
            }
            for (String contender : contenders) {
                List<Level> mine = results.stream()
                        .filter(l ->
                                l.scenario().equals(scenario) && l.contender().equals(contender))
                        .sorted(Comparator.comparingInt(Level::threads))
                        .toList();
                if (mine.isEmpty()) {
                    continue;
                }
                double[] x = mine.stream().mapToDouble(Level::threads).toArray();
                throughput.addSeries(
                        contender,
                        x,
                        mine.stream().mapToDouble(Level::throughput).toArray());
                p99.addSeries(
                        contender,
                        x,
                        mine.stream().mapToDouble(Level::p99Micros).toArray());
            }
            charts.add(throughput);
            charts.add(p99);
        }
        if (!charts.isEmpty()) {
            BitmapEncoder.saveBitmap(charts, scenarios.size(), 2, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
