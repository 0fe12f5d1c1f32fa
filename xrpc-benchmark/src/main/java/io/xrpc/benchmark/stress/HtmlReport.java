package io.xrpc.benchmark.stress;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * {@code report.html}: a run as small multiples a person reads, in one self-contained file (inline
 * SVG and styles; the one script only checks the page). Per scenario: throughput, p50 and p99,
 * the ratio to the baseline, CPU and heap allocation per call, each against caller threads and one
 * line per contender; over time, calls per second and p99 per second; errors by status; and with
 * {@code --compare}, each level before and after.
 */
final class HtmlReport {
    /** The contender other ratios are taken against, when the run has it. */
    static final String BASELINE = "raw-netty";

    private HtmlReport() {
    }

    /** What a previous run measured for one level: the before of a comparison. */
    record Before(String contender, String scenario, int threads, double throughput, double p50, double p90,
                  double p99, double p999) {
    }

    /** The levels of a previous run's results.json (any version of it: only these fields are read). */
    static List<Before> read(Path resultsJson) throws Exception {
        JsonNode doc = new ObjectMapper().readTree(resultsJson.toFile());
        List<Before> before = new ArrayList<>();
        JsonNode levels = doc.get("levels");
        if (levels == null || !levels.isArray()) {
            throw new IllegalArgumentException("--compare " + resultsJson + ": no levels (expected: a results.json"
                    + " this tool wrote)");
        }
        for (JsonNode l : levels) {
            before.add(new Before(l.path("contender").asText(), l.path("scenario").asText(), l.path("threads").asInt(),
                    l.path("throughput").asDouble(), l.path("p50Micros").asDouble(), l.path("p90Micros").asDouble(),
                    l.path("p99Micros").asDouble(), l.path("p999Micros").asDouble()));
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
        long mine = results.stream().filter(r -> r.scenario().equals(l.scenario()) && r.threads() == l.threads()).count();
        return sameLevel.size() == 1 && mine == 1 ? sameLevel.get(0) : null;
    }

    static String render(Map<String, Object> header, List<Level> results, List<Before> before) {
        List<String> contenders = new ArrayList<>(new LinkedHashSet<>(results.stream().map(Level::contender).toList()));
        List<String> scenarios = new ArrayList<>(new LinkedHashSet<>(results.stream().map(Level::scenario).toList()));
        Map<String, String> colour = new LinkedHashMap<>();
        for (int i = 0; i < contenders.size(); i++) {
            colour.put(contenders.get(i), SvgChart.COLOURS[i % SvgChart.COLOURS.length]);
        }
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>XRpc stress report</title>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>")
                .append("body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222}")
                .append("h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}")
                .append(".panels{display:flex;flex-wrap:wrap;gap:12px}.chart{margin:0;border:1px solid #e3e3e3;")
                .append("border-radius:6px;padding:4px;background:#fff}.chart svg text{font-family:inherit}")
                .append(".title{font-size:13px;font-weight:600}.tick{font-size:10px;fill:#555}.label{font-size:11px;fill:#333}")
                .append(".chart .gridline{stroke:#eee}.axis{stroke:#888}figcaption{font-size:12px;padding:2px 6px}")
                .append(".key{margin-right:12px;white-space:nowrap}.key svg{vertical-align:middle;margin-right:4px}")
                .append("table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 7px;")
                .append("text-align:right}th{background:#f6f6f6}td:first-child,th:first-child{text-align:left}")
                .append(".up{color:#067d17}.down{color:#b00020}.note{color:#555}</style></head><body>\n")
                .append("<h1>XRpc stress report</h1>\n<table class=\"facts\">");
        header.forEach((k, v) -> h.append("<tr><th>").append(SvgChart.esc(k)).append("</th><td>")
                .append(SvgChart.esc(String.valueOf(v))).append("</td></tr>"));
        h.append("</table>\n");
        if (before != null) {
            comparison(h, results, before, scenarios, colour);
        }
        for (String scenario : scenarios) {
            List<Level> levels = results.stream().filter(l -> l.scenario().equals(scenario)).toList();
            List<Integer> threads = new ArrayList<>(new LinkedHashSet<>(levels.stream().map(Level::threads).sorted().toList()));
            List<String> categories = threads.stream().map(String::valueOf).toList();
            h.append("<h2>").append(SvgChart.esc(scenario)).append("</h2>\n<div class=\"panels\">");
            SvgChart tp = new SvgChart("Throughput", "caller threads", "calls per second", categories);
            SvgChart lat = new SvgChart("Latency: p99 and p50", "caller threads", "microseconds", categories);
            SvgChart ratio = new SvgChart("Throughput as a ratio to " + BASELINE, "caller threads", "x " + BASELINE,
                    categories);
            SvgChart cpu = new SvgChart("CPU per call", "caller threads",
                    "CPU microseconds per call", categories);
            SvgChart alloc = new SvgChart("Heap allocated per call",
                    "caller threads", "bytes per call", categories);
            for (String c : contenders) {
                List<Level> mine = levels.stream().filter(l -> l.contender().equals(c)).toList();
                String col = colour.get(c);
                tp.add(new SvgChart.Series(c, col, false, points(mine, threads, Level::throughput)));
                List<Level> answered = mine.stream().filter(l -> l.calls() > 0).toList(); // no latency without calls
                lat.add(new SvgChart.Series(c + " p99", col, false, points(answered, threads, Level::p99Micros)));
                lat.add(new SvgChart.Series(c + " p50", col, true, points(answered, threads, Level::p50Micros)));
                cpu.add(new SvgChart.Series(c + " callers", col, false, points(mine, threads, Level::clientCpuMicrosPerCall)));
                cpu.add(new SvgChart.Series(c + " provider", col, true, points(mine, threads, Level::providerCpuMicrosPerCall)));
                alloc.add(new SvgChart.Series(c + " callers", col, false, points(mine, threads, Level::clientAllocBytesPerCall)));
                alloc.add(new SvgChart.Series(c + " provider", col, true, points(mine, threads, Level::providerAllocBytesPerCall)));
                if (!c.equals(BASELINE)) {
                    List<double[]> r = new ArrayList<>();
                    for (Level l : mine) {
                        levels.stream().filter(b -> b.contender().equals(BASELINE) && b.threads() == l.threads()
                                && b.throughput() > 0).findFirst().ifPresent(b -> r.add(
                                new double[] {threads.indexOf(l.threads()), l.throughput() / b.throughput()}));
                    }
                    ratio.add(new SvgChart.Series(c, col, false, r));
                }
            }
            for (SvgChart chart : List.of(tp, lat, ratio, cpu, alloc)) {
                if (!chart.isEmpty()) {
                    h.append(chart.render());
                }
            }
            h.append("</div>\n");
            if (ratio.isEmpty()) {
                h.append("<p class=\"note\">No ratio: this run has no ").append(BASELINE).append(" baseline.</p>\n");
            }
            if (cpu.isEmpty()) {
                h.append("<p class=\"note\">No CPU or allocation per call: they are measured when the callers and the"
                        + " provider run in JVMs apart (--client fork with --provider fork, or --target).</p>\n");
            }
            overTime(h, levels, contenders, colour);
        }
        errors(h, results);
        h.append("<script>\n(function(){var charts=document.querySelectorAll('figure.chart');var empty=0;")
                .append("charts.forEach(function(c){if(c.querySelectorAll('circle.pt').length===0){empty++;}});")
                .append("document.body.setAttribute('data-charts',charts.length);")
                .append("document.body.setAttribute('data-empty-charts',empty);})();\n</script>\n</body></html>\n");
        return h.toString();
    }

    /** Points at the category of each level's thread count; levels whose value is unknown (-1) are left out. */
    private static List<double[]> points(List<Level> levels, List<Integer> threads, ToDoubleFunction<Level> value) {
        List<double[]> p = new ArrayList<>();
        for (Level l : levels) {
            double v = value.applyAsDouble(l);
            if (v >= 0 && Double.isFinite(v)) {
                p.add(new double[] {threads.indexOf(l.threads()), v});
            }
        }
        return p;
    }

    /** Calls per second and p99 per second through the run, seconds counted from the scenario's first point. */
    private static void overTime(StringBuilder h, List<Level> levels, List<String> contenders, Map<String, String> colour) {
        long start = levels.stream().flatMap(l -> l.timeline() == null ? java.util.stream.Stream.empty()
                : l.timeline().stream()).mapToLong(Second::atMillis).min().orElse(-1);
        if (start < 0) {
            return;
        }
        SvgChart calls = new SvgChart("Calls per second over the run", "seconds since the scenario began",
                "calls per second", null);
        SvgChart p99 = new SvgChart("p99 latency over the run", "seconds since the scenario began", "microseconds", null);
        SvgChart errs = new SvgChart("Failed calls over the run", "seconds since the scenario began", "failed calls per point",
                null);
        boolean anyError = false;
        for (String c : contenders) {
            List<double[]> cp = new ArrayList<>();
            List<double[]> pp = new ArrayList<>();
            List<double[]> ep = new ArrayList<>();
            for (Level l : levels) {
                if (!l.contender().equals(c) || l.timeline() == null || l.timeline().isEmpty()) {
                    continue;
                }
                for (List<double[]> line : List.of(cp, pp, ep)) {
                    if (!line.isEmpty()) {
                        line.add(new double[] {0, Double.NaN}); // each level a stretch of its own
                    }
                }
                for (Second s : l.timeline()) {
                    double x = (s.atMillis() - start) / 1e3;
                    cp.add(new double[] {x, s.callsPerSecond()});
                    if (s.callsPerSecond() > 0) {
                        pp.add(new double[] {x, s.p99Micros()});
                    }
                    ep.add(new double[] {x, s.errors()});
                }
            }
            anyError |= ep.stream().anyMatch(p -> p[1] > 0);
            calls.add(new SvgChart.Series(c, colour.get(c), false, cp));
            p99.add(new SvgChart.Series(c, colour.get(c), false, pp));
            errs.add(new SvgChart.Series(c, colour.get(c), false, ep));
        }
        h.append("<div class=\"panels\">");
        for (SvgChart chart : anyError ? List.of(calls, p99, errs) : List.of(calls, p99)) {
            if (!chart.isEmpty()) {
                h.append(chart.render());
            }
        }
        h.append("</div>\n<p class=\"note\">Each stretch of a line is one thread level; levels run one after another,"
                + " and with several contenders their slices take turns.</p>\n");
    }

    private static void errors(StringBuilder h, List<Level> results) {
        h.append("<h2>Errors by status</h2>\n");
        List<Level> failed = results.stream().filter(l -> l.errorCount() > 0).toList();
        if (failed.isEmpty()) {
            h.append("<p>No call failed.</p>\n");
            return;
        }
        Set<String> statuses = new LinkedHashSet<>();
        failed.forEach(l -> statuses.addAll(l.errors().keySet()));
        h.append("<table><tr><th>contender</th><th>scenario</th><th>threads</th><th>calls</th>");
        statuses.forEach(s -> h.append("<th>").append(SvgChart.esc(s)).append("</th>"));
        h.append("</tr>");
        for (Level l : failed) {
            h.append("<tr><td>").append(SvgChart.esc(l.contender())).append("</td><td>").append(SvgChart.esc(l.scenario()))
                    .append("</td><td>").append(l.threads()).append("</td><td>").append(l.calls()).append("</td>");
            statuses.forEach(s -> h.append("<td>").append(l.errors().getOrDefault(s, 0L)).append("</td>"));
            h.append("</tr>");
        }
        h.append("</table>\n");
    }

    private static void comparison(StringBuilder h, List<Level> results, List<Before> before, List<String> scenarios,
                                   Map<String, String> colour) {
        h.append("<h2>Before and after</h2>\n<p class=\"note\">Before (dashed): the run given to --compare; after"
                + " (solid): this run. A change of a few percent is within what one machine drifts between runs.</p>\n");
        for (String scenario : scenarios) {
            List<Level> levels = results.stream().filter(l -> l.scenario().equals(scenario)).toList();
            List<Integer> threads = new ArrayList<>(new LinkedHashSet<>(levels.stream().map(Level::threads).sorted().toList()));
            List<String> categories = threads.stream().map(String::valueOf).toList();
            SvgChart tp = new SvgChart(scenario + ": throughput", "caller threads", "calls per second", categories);
            SvgChart p99 = new SvgChart(scenario + ": p99 latency", "caller threads", "microseconds", categories);
            for (String c : colour.keySet()) {
                List<double[]> tpBefore = new ArrayList<>();
                List<double[]> p99Before = new ArrayList<>();
                List<Level> mine = levels.stream().filter(l -> l.contender().equals(c)).toList();
                for (Level l : mine) {
                    Before b = match(l, before, results);
                    if (b != null) {
                        tpBefore.add(new double[] {threads.indexOf(l.threads()), b.throughput()});
                        p99Before.add(new double[] {threads.indexOf(l.threads()), b.p99()});
                    }
                }
                tp.add(new SvgChart.Series(c + " before", colour.get(c), true, tpBefore));
                tp.add(new SvgChart.Series(c + " after", colour.get(c), false, points(mine, threads, Level::throughput)));
                p99.add(new SvgChart.Series(c + " before", colour.get(c), true, p99Before));
                p99.add(new SvgChart.Series(c + " after", colour.get(c), false, points(mine, threads, Level::p99Micros)));
            }
            h.append("<div class=\"panels\">").append(tp.render()).append(p99.render()).append("</div>\n");
        }
        h.append("<table><tr><th>contender</th><th>scenario</th><th>threads</th><th>calls/s before</th><th>after</th>"
                + "<th>change</th><th>p50 us before</th><th>after</th><th>change</th><th>p90 change</th>"
                + "<th>p99 us before</th><th>after</th><th>change</th><th>p99.9 change</th></tr>");
        for (Level l : results) {
            Before b = match(l, before, results);
            if (b == null) {
                continue;
            }
            h.append("<tr><td>").append(SvgChart.esc(l.contender())).append("</td><td>").append(SvgChart.esc(l.scenario()))
                    .append("</td><td>").append(l.threads()).append("</td>")
                    .append(cell(b.throughput())).append(cell(l.throughput())).append(change(b.throughput(), l.throughput(), true))
                    .append(cell(b.p50())).append(cell(l.p50Micros())).append(change(b.p50(), l.p50Micros(), false))
                    .append(change(b.p90(), l.p90Micros(), false))
                    .append(cell(b.p99())).append(cell(l.p99Micros())).append(change(b.p99(), l.p99Micros(), false))
                    .append(change(b.p999(), l.p999Micros(), false)).append("</tr>");
        }
        h.append("</table>\n");
    }

    private static String cell(double v) {
        return "<td>" + SvgChart.number(v) + "</td>";
    }

    /** How much {@code after} differs from {@code before}, in percent of {@code before} (which is above 0). */
    static double changePercent(double before, double after) {
        return (after - before) / before * 100;
    }

    /** The change from {@code before} to {@code after} in percent, green when it is better. */
    static String change(double before, double after, boolean higherIsBetter) {
        if (!(before > 0)) {
            return "<td>-</td>";
        }
        double pct = changePercent(before, after);
        boolean better = higherIsBetter ? pct > 0 : pct < 0;
        return String.format(Locale.ROOT, "<td class=\"%s\">%+.1f%%</td>", Math.abs(pct) < 0.05 ? "" : better ? "up" : "down",
                pct);
    }
}
