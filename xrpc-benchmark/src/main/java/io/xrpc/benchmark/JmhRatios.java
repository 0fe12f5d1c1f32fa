package io.xrpc.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a JMH JSON result of {@code SerializerBenchmark} into a Markdown table of XRpc's
 * throughput over the raw library's, per serializer, compressor, payload and operation:
 * the SPI's overhead, measured in one run. {@code java -cp benchmarks.jar io.xrpc.benchmark.JmhRatios jmh.json}
 */
public final class JmhRatios {
    private JmhRatios() {
    }

    public static void main(String[] args) throws IOException {
        System.out.print(table(new ObjectMapper().readTree(new File(args[0]))));
    }

    static String table(JsonNode results) {
        Map<String, double[]> rows = new TreeMap<>(); // key -> {xrpc, raw}
        for (JsonNode r : results) {
            String bench = r.get("benchmark").asText();
            if (!bench.contains("SerializerBenchmark")) {
                continue;
            }
            JsonNode p = r.get("params");
            String key = String.join(" | ", p.get("serializer").asText(), p.get("compressor").asText(),
                    p.get("payload").asText(), bench.substring(bench.lastIndexOf('.') + 1));
            double[] pair = rows.computeIfAbsent(key, k -> new double[2]);
            pair[p.get("api").asText().equals("xrpc") ? 0 : 1] = r.get("primaryMetric").get("score").asDouble();
        }
        StringBuilder sb = new StringBuilder("| serializer | compressor | payload | operation | xrpc ops/ms | raw ops/ms"
                + " | xrpc / raw |\n|---|---|---|---|---:|---:|---:|\n");
        rows.forEach((k, v) -> sb.append(String.format("| %s | %.1f | %.1f | %s |%n", k, v[0], v[1],
                v[1] > 0 ? String.format("%.2f", v[0] / v[1]) : "-")));
        return sb.toString();
    }
}
