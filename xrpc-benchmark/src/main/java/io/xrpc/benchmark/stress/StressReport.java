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

/** A run's results as results.json, results.md (ratios to raw Netty in the same run) and results.png. */
final class StressReport {
    private StressReport() {
    }

    static void write(Path out, Map<String, Object> header, List<Level> results) throws Exception {
        Files.createDirectories(out);
        Map<String, Object> doc = new LinkedHashMap<>(header);
        doc.put("levels", results);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("results.json").toFile(), doc);
        Files.writeString(out.resolve("results.md"), markdown(results), StandardCharsets.UTF_8);
        chart(out, results);
        System.out.println("results: " + out.toAbsolutePath().resolve("results.{json,md,png}"));
    }

    /** The table, with each level's throughput and p50 as a ratio to raw Netty's in the same run. */
    static String markdown(List<Level> results) {
        StringBuilder sb = new StringBuilder("| contender | scenario | threads | calls/s | vs raw (rounds) | p50 us | vs raw | p90 us"
                + " | p99 us | p99.9 us | max us | errors | provider CPU us/call | vs raw | client CPU us/call"
                + " | provider B/call | vs raw | client B/call |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Level l : results) {
            Level base = results.stream().filter(b -> b.contender().equals("raw-netty")
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

    private static void chart(Path out, List<Level> results) throws Exception {
        XYChart throughput = new XYChartBuilder().width(900).height(500).title("Throughput")
                .xAxisTitle("caller threads").yAxisTitle("calls/s").build();
        XYChart p99 = new XYChartBuilder().width(900).height(500).title("p99 latency")
                .xAxisTitle("caller threads").yAxisTitle("microseconds").build();
        Map<String, List<Level>> series = new LinkedHashMap<>();
        for (Level l : results) {
            series.computeIfAbsent(l.contender() + " " + l.scenario(), k -> new ArrayList<>()).add(l);
        }
        for (Map.Entry<String, List<Level>> e : series.entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(Level::threads).toArray();
            throughput.addSeries(e.getKey(), x, e.getValue().stream().mapToDouble(Level::throughput).toArray());
            p99.addSeries(e.getKey(), x, e.getValue().stream().mapToDouble(Level::p99Micros).toArray());
        }
        if (!series.isEmpty()) {
            BitmapEncoder.saveBitmap(List.of(throughput, p99), 2, 1, out.resolve("results").toString(),
                    BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
