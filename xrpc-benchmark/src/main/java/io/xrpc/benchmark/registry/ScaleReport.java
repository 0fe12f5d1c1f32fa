package io.xrpc.benchmark.registry;

import java.util.List;
import java.util.Locale;

/** The scale tool's rows as the Markdown tables REGISTRY.md quotes: sizes and times, then the leader kills. */
final class ScaleReport {
    private ScaleReport() {}

    static String markdown(List<RegistryScaleTool.Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| mode | P x S x C | znodes | watches | subscribe p50 / p99 (ms) | join seen p50 / p99 / max (ms)"
                + " | leave seen p50 / p99 / max (ms) | consumer CPU per join (us) | heap per consumer (KB)"
                + " | heap per instance (bytes) |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RegistryScaleTool.Row r : rows) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d x %d x %d | %,d | %,d | %.0f / %.0f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.0f | %,d | %,d |%n",
                    r.mode(),
                    r.instances(),
                    r.services(),
                    r.consumers(),
                    r.znodes(),
                    r.watches(),
                    r.subscribeP50(),
                    r.subscribeP99(),
                    r.joinP50(),
                    r.joinP99(),
                    r.joinMax(),
                    r.leaveP50(),
                    r.leaveP99(),
                    r.leaveMax(),
                    r.cpuMicrosPerJoin(),
                    r.heapPerConsumer() / 1024,
                    r.heapPerConsumer() / r.instances()));
        }
        boolean storms = rows.stream().anyMatch(r -> r.storm() != null);
        if (storms) {
            sb.append("\n| mode | P x S x C | leader again after (ms) | smallest list seen | lists below the true size"
                    + " | consumers whole again after (ms) | ZooKeeper whole again after (ms) |\n"
                    + "|---|---|---:|---:|---:|---:|---:|\n");
            for (RegistryScaleTool.Row r : rows) {
                if (r.storm() != null) {
                    RegistryScaleTool.Storm s = r.storm();
                    sb.append(String.format(
                            Locale.ROOT,
                            "| %s | %,d x %d x %d | %,d | %,d of %,d | %,d | %,d | %,d |%n",
                            r.mode(),
                            r.instances(),
                            r.services(),
                            r.consumers(),
                            s.electionMillis(),
                            s.minListSize(),
                            r.instances(),
                            s.listsBelowTrueSize(),
                            s.wholeAfterMillis(),
                            s.zkWholeAfterMillis()));
                }
            }
        }
        return sb.toString();
    }
}
