package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * A run's results as results.json, results.md (ratios to raw Netty in the same run, and with
 * {@code --compare} each level before and after), results.png and report.html ({@link HtmlReport}).
 */
final class StressReport {
    private StressReport() {
    }

    static void write(Path out, Map<String, Object> header, List<Level> results, Path compare) throws Exception {
        List<HtmlReport.Before> before = compare == null ? null : HtmlReport.read(compare);
        Files.createDirectories(out);
        Map<String, Object> doc = new LinkedHashMap<>(header);
        if (compare != null) {
            doc.put("comparedWith", compare.toAbsolutePath().toString());
        }
        doc.put("levels", results);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), doc);
        Files.writeString(out.resolve("results.md"), markdown(results) + (before == null ? ""
                : "\n" + comparison(results, before)), StandardCharsets.UTF_8);
        chart(out.resolve("results"), results);
        Files.writeString(out.resolve("report.html"), HtmlReport.render(doc.entrySet().stream()
                .filter(e -> !e.getKey().equals("levels"))
                .collect(LinkedHashMap::new, (m, e) -> m.put(e.getKey(), e.getValue()), Map::putAll), results, before),
                StandardCharsets.UTF_8);
        System.out.println("results: " + out.toAbsolutePath().resolve("results.{json,md,png}") + " and "
                + out.toAbsolutePath().resolve("report.html"));
    }

    /** The reports of an earlier run's results.json, written again (by this version of the tool) into {@code out}. */
    static void rewrite(Path resultsJson, Path out, Path compare) throws Exception {
        ObjectMapper json = new ObjectMapper().configure(
                com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        com.fasterxml.jackson.databind.JsonNode doc = json.readTree(resultsJson.toFile());
        Map<String, Object> header = new LinkedHashMap<>();
        if (doc == null || !doc.path("levels").isArray()) {
            throw new IllegalArgumentException("--report-from " + resultsJson + ": no levels (expected: a results.json"
                    + " this tool wrote)");
        }
        doc.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("levels") && !e.getKey().equals("comparedWith") && e.getValue().isValueNode()) {
                // A results.json of an earlier version may hold a registry password in its target.
                header.put(e.getKey(), e.getKey().equals("target") ? io.xrpc.registry.RegistryConfig.mask(e.getValue()
                        .asText()) : e.getValue().asText());
            }
        });
        List<Level> levels = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode l : doc.get("levels")) {
            levels.add(json.treeToValue(l, Level.class));
        }
        write(out, header, levels, compare);
    }

    /** Each level beside the previous run's: throughput and every percentile, before, after and the change. */
    static String comparison(List<Level> results, List<HtmlReport.Before> before) {
        StringBuilder sb = new StringBuilder("| contender | scenario | threads | calls/s before | after | change"
                + " | p50 us before | after | change | p90 change | p99 us before | after | change | p99.9 change |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Level l : results) {
            HtmlReport.Before b = HtmlReport.match(l, before, results);
            if (b == null) {
                continue;
            }
            sb.append(String.format(java.util.Locale.ROOT, "| %s | %s | %d | %.0f | %.0f | %s | %.1f | %.1f | %s | %s"
                            + " | %.1f | %.1f | %s | %s |%n", l.contender(), l.scenario(), l.threads(), b.throughput(),
                    l.throughput(), pct(b.throughput(), l.throughput()), b.p50(), l.p50Micros(), pct(b.p50(), l.p50Micros()),
                    pct(b.p90(), l.p90Micros()), b.p99(), l.p99Micros(), pct(b.p99(), l.p99Micros()),
                    pct(b.p999(), l.p999Micros())));
        }
        return sb.toString();
    }

    private static String pct(double before, double after) {
        return before > 0 ? String.format(java.util.Locale.ROOT, "%+.1f%%", HtmlReport.changePercent(before, after))
                : "-";
    }

    /** The table, with each level's throughput and p50 as a ratio to raw Netty's in the same run. */
    static String markdown(List<Level> results) {
        StringBuilder sb = new StringBuilder("| contender | scenario | threads | calls/s | vs raw (rounds) | p50 us | vs raw | p90 us"
                + " | p99 us | p99.9 us | max us | errors | provider CPU us/call | vs raw | client CPU us/call"
                + " | provider B/call | vs raw | client B/call |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Level l : results) {
            Level base = results.stream().filter(b -> b.contender().equals(HtmlReport.BASELINE)
                    && b.scenario().equals(l.scenario()) && b.threads() == l.threads()).findFirst().orElse(null);
            sb.append(String.format("| %s | %s | %d | %.0f | %s | %.1f | %s | %.1f | %.1f | %.1f | %.1f | %d | %s | %s | %s"
                            + " | %s | %s | %s |%n",
                    l.contender(), l.scenario(), l.threads(), l.throughput(),
                    base == null ? "-" : ratio(l, base), l.p50Micros(),
                    base == null ? "-" : String.format("%.2fx", l.p50Micros() / base.p50Micros()), l.p90Micros(),
                    l.p99Micros(), l.p999Micros(), l.maxMicros(), l.errorCount(),
                    cpu(l.providerCpuMicrosPerCall()),
                    base == null || l.providerCpuMicrosPerCall() < 0 || base.providerCpuMicrosPerCall() <= 0 ? "-"
                            : String.format("%.2fx", l.providerCpuMicrosPerCall() / base.providerCpuMicrosPerCall()),
                    cpu(l.clientCpuMicrosPerCall()),
                    bytes(l.providerAllocBytesPerCall()),
                    base == null || l.providerAllocBytesPerCall() < 0 || base.providerAllocBytesPerCall() <= 0 ? "-"
                            : String.format("%.2fx", l.providerAllocBytesPerCall() / base.providerAllocBytesPerCall()),
                    bytes(l.clientAllocBytesPerCall())));
        }
        return sb.toString();
    }

    /**
     * Throughput over raw Netty's; after an interleaved run, with the lowest and highest ratio of
     * one round's slices, which shows how far the machine's drift could move it.
     */
    private static String ratio(Level l, Level base) {
        String total = String.format("%.2fx", l.throughput() / base.throughput());
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
        return String.format("%s (%.2f-%.2f)", total, low, high);
    }

    private static String bytes(double perCall) {
        return perCall < 0 ? "-" : String.format("%.0f", perCall);
    }

    private static String cpu(double micros) {
        return micros < 0 ? "-" : String.format("%.1f", micros);
    }

    /**
     * {@code <file>.png}: small multiples, a row per scenario of throughput and p99 against caller
     * threads, one line per contender in colours that stay apart.
     */
    static void chart(Path file, List<Level> results) throws Exception {
        List<String> scenarios = results.stream().map(Level::scenario).distinct().toList();
        List<String> contenders = results.stream().map(Level::contender).distinct().toList();
        List<org.knowm.xchart.internal.chartpart.Chart<?, ?>> charts = new ArrayList<>();
        for (String scenario : scenarios) {
            boolean log = results.stream().mapToInt(Level::threads).max().orElse(1)
                    > 8 * results.stream().mapToInt(Level::threads).min().orElse(1);
            String threadsAxis = log ? "caller threads (log scale)" : "caller threads";
            XYChart throughput = new XYChartBuilder().width(660).height(360).title(scenario + ": throughput")
                    .xAxisTitle(threadsAxis).yAxisTitle("calls per second").build();
            XYChart p99 = new XYChartBuilder().width(660).height(360).title(scenario + ": p99 latency")
                    .xAxisTitle(threadsAxis).yAxisTitle("microseconds").build();
            for (XYChart c : List.of(throughput, p99)) {
                c.getStyler().setSeriesColors(contenders.stream().map(n -> java.awt.Color.decode(
                        SvgChart.COLOURS[contenders.indexOf(n) % SvgChart.COLOURS.length])).toArray(java.awt.Color[]::new));
                c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
                c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Horizontal);
                c.getStyler().setLegendFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 11));
                c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
                c.getStyler().setXAxisLogarithmic(log);
                c.getStyler().setYAxisDecimalPattern("#,###");
                c.getStyler().setXAxisDecimalPattern("#");
            }
            for (String contender : contenders) {
                List<Level> mine = results.stream().filter(l -> l.scenario().equals(scenario)
                        && l.contender().equals(contender)).sorted(java.util.Comparator.comparingInt(Level::threads)).toList();
                if (mine.isEmpty()) {
                    continue;
                }
                double[] x = mine.stream().mapToDouble(Level::threads).toArray();
                throughput.addSeries(contender, x, mine.stream().mapToDouble(Level::throughput).toArray());
                p99.addSeries(contender, x, mine.stream().mapToDouble(Level::p99Micros).toArray());
            }
            charts.add(throughput);
            charts.add(p99);
        }
        if (!charts.isEmpty()) {
            BitmapEncoder.saveBitmap(charts, scenarios.size(), 2, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
