package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one contender's callers did in one measured stretch, and the JVMs' cost counters when it
 * began and ended: the unit a run is made of. A {@link Level} is the sum of its slices; in an
 * interleaved run each contender gets one slice per round, in turn, so that a change in the
 * machine's speed during the run reaches every contender alike instead of whichever ran then.
 *
 * @param latencies   every successful call's latency, in nanoseconds
 * @param startMillis when the slice began, in {@link System#currentTimeMillis()} (comparable across JVMs)
 * @param start       the cost counters read as the slice began
 * @param end         and as it ended
 * @param steady      for a warm-up, whether it ended because the level was steady (not at its
 *                    maximum); true for a measured slice
 */
record Slice(
        Histogram latencies,
        Map<String, Long> errors,
        double seconds,
        long startMillis,
        Costs start,
        Costs end,
        List<Second> timeline,
        boolean steady) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Cumulative counters of the two JVMs: CPU nanoseconds and heap bytes allocated since each
     * started; -1 where a counter cannot be read (or the provider runs in the callers' JVM).
     */
    record Costs(long providerCpuNanos, long clientCpuNanos, long providerAllocBytes, long clientAllocBytes) {
        static final Costs UNKNOWN = new Costs(-1, -1, -1, -1);

        long[] values() {
            return new long[] {providerCpuNanos, clientCpuNanos, providerAllocBytes, clientAllocBytes};
        }

        static Costs of(long[] v) {
            return new Costs(v[0], v[1], v[2], v[3]);
        }
    }

    long calls() {
        return latencies.getTotalCount();
    }

    double throughput() {
        return calls() / seconds;
    }

    Slice withCosts(Costs start, Costs end) {
        return new Slice(latencies, errors, seconds, startMillis, start, end, timeline, steady);
    }

    /** A histogram as text: compressed, in base64 (how slices travel and levels are kept in results.json). */
    static String text(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), n));
    }

    /** The histogram {@link #text} wrote. */
    static Histogram histogram(String text) throws DataFormatException {
        return Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(text)), 0);
    }

    /** One line of JSON, the histogram compressed in base64: how an agent JVM answers the tool. */
    String encode() {
        ObjectNode o = JSON.createObjectNode();
        o.put("latencies", text(latencies));
        o.set("errors", JSON.valueToTree(errors));
        o.put("seconds", seconds);
        o.put("startMillis", startMillis);
        o.set("start", JSON.valueToTree(start.values()));
        o.set("end", JSON.valueToTree(end.values()));
        o.set("timeline", JSON.valueToTree(timeline));
        o.put("steady", steady);
        return o.toString();
    }

    static Slice decode(String line) throws Exception {
        JsonNode o = JSON.readTree(line);
        Histogram h = histogram(o.get("latencies").asText());
        Map<String, Long> errors = new LinkedHashMap<>();
        o.get("errors")
                .fields()
                .forEachRemaining(e -> errors.put(e.getKey(), e.getValue().asLong()));
        return new Slice(
                h,
                errors,
                o.get("seconds").asDouble(),
                o.get("startMillis").asLong(),
                Costs.of(JSON.treeToValue(o.get("start"), long[].class)),
                Costs.of(JSON.treeToValue(o.get("end"), long[].class)),
                List.of(JSON.treeToValue(o.get("timeline"), Second[].class)),
                o.get("steady").asBoolean());
    }
}
