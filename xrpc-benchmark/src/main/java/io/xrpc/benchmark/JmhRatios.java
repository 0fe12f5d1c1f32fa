package io.xrpc.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a JMH JSON result of {@code SerializerBenchmark} into a Markdown table of XRpc's score
 * beside the raw library's, each with its error bar, per serializer, compressor, payload and
 * operation, and the SPI's overhead (XRpc's extra time per operation), measured in one run; with
 * {@code api=xrpc-stream} results, also the SPI read through a stream only and its overhead.
 * {@code java -cp benchmarks.jar io.xrpc.benchmark.JmhRatios jmh.json}
 */
public final class JmhRatios {
    private JmhRatios() {}

    public static void main(String[] args) throws IOException {
        System.out.print(table(new ObjectMapper().readTree(new File(args[0]))));
    }

    static String table(JsonNode results) {
        Map<String, JsonNode[]> rows = new TreeMap<>(); // key -> {xrpc, raw, xrpc-stream}
        String unit = "";
        boolean time = false;
        boolean streams = false;
        for (JsonNode r : results) {
            String bench = r.get("benchmark").asText();
            if (!bench.contains("SerializerBenchmark")) {
                continue;
            }
            JsonNode p = r.get("params");
            String key = String.join(
                    " | ",
                    p.get("serializer").asText(),
                    p.get("compressor").asText(),
                    p.get("payload").asText(),
                    bench.substring(bench.lastIndexOf('.') + 1));
            JsonNode[] row = rows.computeIfAbsent(key, k -> new JsonNode[3]);
            String api = p.get("api").asText();
            int column = switch (api) {
                case "xrpc" -> 0;
                case "raw" -> 1;
                case "xrpc-stream" -> 2;
                default -> throw new IllegalArgumentException("api " + api + " (expected: xrpc, raw or xrpc-stream)");
            };
            streams |= column == 2;
            row[column] = r.get("primaryMetric");
            unit = r.get("primaryMetric").get("scoreUnit").asText();
            time = r.get("mode").asText().equals("avgt")
                    || r.get("mode").asText().equals("sample");
        }
        StringBuilder sb = new StringBuilder("| serializer | compressor | payload | operation | xrpc " + unit
                + " | raw " + unit + " | SPI overhead |" + (streams ? " xrpc-stream " + unit + " | its overhead |" : "")
                + "\n|---|---|---|---|---:|---:|---:|" + (streams ? "---:|---:|" : "") + "\n");
        for (Map.Entry<String, JsonNode[]> e : rows.entrySet()) {
            JsonNode[] row = e.getValue();
            sb.append(String.format(
                    "| %s | %s | %s | %s |", e.getKey(), cell(row[0]), cell(row[1]), overhead(row[0], row[1], time)));
            if (streams) {
                sb.append(String.format(" %s | %s |", cell(row[2]), overhead(row[2], row[1], time)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Extra cost of going through XRpc: more time per op, or fewer ops per unit of time. */
    private static String overhead(JsonNode xrpc, JsonNode raw, boolean time) {
        if (xrpc == null || raw == null) {
            return "-";
        }
        double ratio = time ? score(xrpc) / score(raw) : score(raw) / score(xrpc);
        return String.format("%+.0f%%", (ratio - 1) * 100);
    }

    private static double score(JsonNode metric) {
        return metric.get("score").asDouble();
    }

    /** Score with JMH's 99.9% error as a share of it: the error bar the 10% bound is read against. */
    private static String cell(JsonNode metric) {
        if (metric == null) {
            return "-";
        }
        double error = metric.get("scoreError").asDouble();
        return Double.isNaN(error)
                ? String.format("%.1f", score(metric))
                : String.format("%.1f ± %.0f%%", score(metric), 100 * error / score(metric));
    }
}
