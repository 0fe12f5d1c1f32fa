package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one contender's callers did in one measured stretch, and what each JVM spent meanwhile: the
 * unit a run is made of. A {@link Level} is the sum of its slices; in an interleaved run each
 * contender gets one slice per round, in turn, so that a change in the machine's speed during the
 * run reaches every contender alike instead of whichever ran then.
 *
 * @param latencies          every successful call's latency, in nanoseconds
 * @param providerCpuNanos   CPU the provider's JVM used meanwhile, or -1 (in the callers' JVM, or unreadable)
 * @param clientCpuNanos     CPU the callers' JVM used meanwhile, or -1
 * @param providerAllocBytes heap bytes the provider's JVM allocated meanwhile, or -1
 * @param clientAllocBytes   heap bytes the callers' JVM allocated meanwhile, or -1
 */
record Slice(Histogram latencies, Map<String, Long> errors, double seconds, long providerCpuNanos,
             long clientCpuNanos, long providerAllocBytes, long clientAllocBytes) {
    private static final ObjectMapper JSON = new ObjectMapper();

    long calls() {
        return latencies.getTotalCount();
    }

    double throughput() {
        return calls() / seconds;
    }

    Slice withCost(long providerCpu, long clientCpu, long providerAlloc, long clientAlloc) {
        return new Slice(latencies, errors, seconds, providerCpu, clientCpu, providerAlloc, clientAlloc);
    }

    /** One line of JSON, the histogram compressed in base64: how an agent JVM answers the tool. */
    String encode() {
        ByteBuffer buf = ByteBuffer.allocate(latencies.getNeededByteBufferCapacity());
        int n = latencies.encodeIntoCompressedByteBuffer(buf);
        ObjectNode o = JSON.createObjectNode();
        o.put("latencies", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n)));
        o.set("errors", JSON.valueToTree(errors));
        o.put("seconds", seconds);
        o.put("providerCpuNanos", providerCpuNanos);
        o.put("clientCpuNanos", clientCpuNanos);
        o.put("providerAllocBytes", providerAllocBytes);
        o.put("clientAllocBytes", clientAllocBytes);
        return o.toString();
    }

    static Slice decode(String line) throws Exception {
        JsonNode o = JSON.readTree(line);
        Histogram h;
        try {
            h = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(o.get("latencies").asText())), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("an agent sent a histogram that does not decode: " + e, e);
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        o.get("errors").fields().forEachRemaining(e -> errors.put(e.getKey(), e.getValue().asLong()));
        return new Slice(h, errors, o.get("seconds").asDouble(), o.get("providerCpuNanos").asLong(),
                o.get("clientCpuNanos").asLong(), o.get("providerAllocBytes").asLong(), o.get("clientAllocBytes").asLong());
    }
}
