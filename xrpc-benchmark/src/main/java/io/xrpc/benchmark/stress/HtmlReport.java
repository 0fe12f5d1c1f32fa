package io.xrpc.benchmark.stress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
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

    private HtmlReport() {}

    static String render(Map<String, Object> header, List<Level> results, List<Comparison.Before> before) {
        List<String> contenders = new ArrayList<>(
                new LinkedHashSet<>(results.stream().map(Level::contender).toList()));
        List<String> scenarios = new ArrayList<>(
                new LinkedHashSet<>(results.stream().map(Level::scenario).toList()));
        Map<String, String> colour = new LinkedHashMap<>();
        for (int i = 0; i < contenders.size(); i++) {
            colour.put(contenders.get(i), SvgChart.COLOURS[i % SvgChart.COLOURS.length]);
        }
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>XRpc stress report</title>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>")
                .append(
                        "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222}")
                .append("h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}")
                .append(".panels{display:flex;flex-wrap:wrap;gap:12px}.chart{margin:0;border:1px solid #e3e3e3;")
                .append("border-radius:6px;padding:4px;background:#fff}.chart svg text{font-family:inherit}")
                .append(
                        ".title{font-size:13px;font-weight:600}.tick{font-size:10px;fill:#555}.label{font-size:11px;fill:#333}")
                .append(".chart .gridline{stroke:#eee}.axis{stroke:#888}figcaption{font-size:12px;padding:2px 6px}")
                .append(".key{margin-right:12px;white-space:nowrap}.key svg{vertical-align:middle;margin-right:4px}")
                .append("table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 7px;")
                .append("text-align:right}th{background:#f6f6f6}td:first-child,th:first-child{text-align:left}")
                .append(
                        ".up{color:#067d17}.down{color:#b00020}.note{color:#555}.facts td{text-align:left}</style></head><body>\n")
                .append("<h1>XRpc stress report</h1>\n<table class=\"facts\">");
        header.forEach((k, v) -> h.append("<tr><th>")
                .append(SvgChart.esc(k))
                .append("</th><td>")
                .append(SvgChart.esc(String.valueOf(v)))
                .append("</td></tr>"));
        h.append("</table>\n");
        summary(h, results);
        if (before != null) {
            comparison(h, results, before, scenarios, colour);
        }
        for (String scenario : scenarios) {
            List<Level> levels =
                    results.stream().filter(l -> l.scenario().equals(scenario)).toList();
            List<Integer> threads = new ArrayList<>(new LinkedHashSet<>(
                    levels.stream().map(Level::threads).sorted().toList()));
            List<String> categories = threads.stream().map(String::valueOf).toList();
            h.append("<h2>").append(SvgChart.esc(scenario)).append("</h2>\n<div class=\"panels\">");
            SvgChart tp = new SvgChart("Throughput", "caller threads", "calls per second", categories);
            SvgChart lat = new SvgChart("Latency: p99 and p50", "caller threads", "microseconds", categories);
            SvgChart ratio =
                    new SvgChart("Throughput as a ratio to " + BASELINE, "caller threads", "x " + BASELINE, categories);
            SvgChart cpu = new SvgChart("CPU per call", "caller threads", "CPU microseconds per call", categories);
            SvgChart alloc = new SvgChart("Heap allocated per call", "caller threads", "bytes per call", categories);
            for (String c : contenders) {
                List<Level> mine =
                        levels.stream().filter(l -> l.contender().equals(c)).toList();
                String col = colour.get(c);
                tp.add(new SvgChart.Series(c, col, false, points(mine, threads, Level::throughput)));
                List<Level> answered = mine.stream().filter(Level::hasLatency).toList();
                lat.add(new SvgChart.Series(c + " p99", col, false, points(answered, threads, Level::p99Micros)));
                lat.add(new SvgChart.Series(c + " p50", col, true, points(answered, threads, Level::p50Micros)));
                cpu.add(new SvgChart.Series(
                        c + " callers", col, false, points(mine, threads, Level::clientCpuMicrosPerCall)));
                cpu.add(new SvgChart.Series(
                        c + " provider", col, true, points(mine, threads, Level::providerCpuMicrosPerCall)));
                alloc.add(new SvgChart.Series(
                        c + " callers", col, false, points(mine, threads, Level::clientAllocBytesPerCall)));
                alloc.add(new SvgChart.Series(
                        c + " provider", col, true, points(mine, threads, Level::providerAllocBytesPerCall)));
                if (!c.equals(BASELINE)) {
                    List<double[]> r = new ArrayList<>();
                    for (Level l : mine) {
                        levels.stream()
                                .filter(b -> b.contender().equals(BASELINE)
                                        && b.threads() == l.threads()
                                        && b.throughput() > 0)
                                .findFirst()
                                .ifPresent(b -> r.add(
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
            if (ratio.isEmpty() && !header.containsKey("target")) {
                h.append("<p class=\"note\">No ratio: this run has no ")
                        .append(BASELINE)
                        .append(" baseline.</p>\n");
            }
            if (cpu.isEmpty()) {
                h.append("<p class=\"note\">No CPU or allocation per call: they are measured when the callers and the"
                        + " provider run in JVMs apart (--client fork with --provider fork, or --target).</p>\n");
            }
            RunCharts.distribution(h, levels);
            RunCharts.overTime(h, levels, contenders, colour);
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

    /**
     * A row per level, as Gatling's summary has: how long it warmed and whether it was steady, calls
     * that succeeded and failed, throughput, and the latency's min, mean, percentiles and max.
     */
    private static void summary(StringBuilder h, List<Level> results) {
        boolean open = results.stream().anyMatch(l -> l.rate() > 0);
        h.append("<h2>Summary</h2>\n<table class=\"summary\"><tr><th>contender</th><th>scenario</th><th>")
                .append(open ? "callers" : "threads")
                .append("</th>")
                .append(open ? "<th>rate asked /s</th>" : "")
                .append("<th>warm-up s</th><th>steady</th><th>calls OK</th><th>KO</th><th>KO %</th><th>calls/s</th>"
                        + "<th>min us</th><th>mean us</th><th>p50 us</th><th>p90 us</th><th>p95 us</th><th>p99 us</th>"
                        + "<th>p99.9 us</th><th>max us</th></tr>");
        for (Level l : results) {
            long all = l.calls() + l.errorCount();
            h.append("<tr><td>")
                    .append(SvgChart.esc(l.contender()))
                    .append("</td><td>")
                    .append(SvgChart.esc(l.scenario()))
                    .append("</td><td>")
                    .append(l.threads())
                    .append("</td>")
                    .append(open ? cell(l.rate()) : "")
                    .append(latency(l.steady() != null, l.warmupSeconds()))
                    .append(l.steady() != null && !l.wasSteady() ? "<td class=\"down\">" : "<td>")
                    .append(l.steadyText())
                    .append("</td>")
                    .append("<td>")
                    .append(l.calls())
                    .append("</td><td")
                    .append(l.errorCount() > 0 ? " class=\"down\">" : ">")
                    .append(l.errorCount())
                    .append("</td>")
                    .append(cell(all == 0 ? 0 : 100.0 * l.errorCount() / all))
                    .append(cell(l.throughput()));
            // No latency without a successful call; no min, mean or p95 in a results.json older than them.
            boolean any = l.hasLatency();
            boolean full = l.hasFullLatency();
            h.append(latency(full, l.minMicros()))
                    .append(latency(full, l.meanMicros()))
                    .append(latency(any, l.p50Micros()))
                    .append(latency(any, l.p90Micros()))
                    .append(latency(full, l.p95Micros()))
                    .append(latency(any, l.p99Micros()))
                    .append(latency(any, l.p999Micros()))
                    .append(latency(any, l.maxMicros()))
                    .append("</tr>");
        }
        h.append("</table>\n<p class=\"note\">KO: calls that failed, by status below. Latency is of the calls that"
                        + " succeeded")
                .append(open ? ", counted from when each call was due (open model)" : "")
                .append(". A level is steady when its warm-up ended with its throughput no longer moving and its"
                        + " measured throughput then moved no more than that (the warm-up rule above).</p>\n");
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
            h.append("<tr><td>")
                    .append(SvgChart.esc(l.contender()))
                    .append("</td><td>")
                    .append(SvgChart.esc(l.scenario()))
                    .append("</td><td>")
                    .append(l.threads())
                    .append("</td><td>")
                    .append(l.calls())
                    .append("</td>");
            statuses.forEach(
                    s -> h.append("<td>").append(l.errors().getOrDefault(s, 0L)).append("</td>"));
            h.append("</tr>");
        }
        h.append("</table>\n");
    }

    private static void comparison(
            StringBuilder h,
            List<Level> results,
            List<Comparison.Before> before,
            List<String> scenarios,
            Map<String, String> colour) {
        h.append("<h2>Before and after</h2>\n<p class=\"note\">Before (dashed): the run given to --compare; after"
                + " (solid): this run. Each change is given with its noise: the half-width of a 99% confidence"
                + " interval of the difference between the two runs, from the values of their callers' JVMs when both"
                + " ran --forks 2 or more, else from their per-second values (marked *: what differs from one JVM to"
                + " the next is then not in it). Only a change beyond its noise (and at least "
                + SvgChart.number(Comparison.FLOOR) + "%) is named and coloured; a level that was not steady in either"
                + " run is not judged.</p>\n");
        for (String scenario : scenarios) {
            List<Level> levels =
                    results.stream().filter(l -> l.scenario().equals(scenario)).toList();
            List<Integer> threads = new ArrayList<>(new LinkedHashSet<>(
                    levels.stream().map(Level::threads).sorted().toList()));
            List<String> categories = threads.stream().map(String::valueOf).toList();
            SvgChart tp = new SvgChart(scenario + ": throughput", "caller threads", "calls per second", categories);
            SvgChart p99 = new SvgChart(scenario + ": p99 latency", "caller threads", "microseconds", categories);
            for (String c : colour.keySet()) {
                List<double[]> tpBefore = new ArrayList<>();
                List<double[]> p99Before = new ArrayList<>();
                List<Level> mine =
                        levels.stream().filter(l -> l.contender().equals(c)).toList();
                for (Level l : mine) {
                    Comparison.Before b = Comparison.match(l, before, results);
                    if (b != null) {
                        tpBefore.add(new double[] {threads.indexOf(l.threads()), b.throughput()});
                        p99Before.add(new double[] {threads.indexOf(l.threads()), b.p99()});
                    }
                }
                tp.add(new SvgChart.Series(c + " before", colour.get(c), true, tpBefore));
                tp.add(new SvgChart.Series(
                        c + " after", colour.get(c), false, points(mine, threads, Level::throughput)));
                p99.add(new SvgChart.Series(c + " before", colour.get(c), true, p99Before));
                p99.add(new SvgChart.Series(
                        c + " after", colour.get(c), false, points(mine, threads, Level::p99Micros)));
            }
            h.append("<div class=\"panels\">")
                    .append(tp.render())
                    .append(p99.render())
                    .append("</div>\n");
        }
        h.append("<table class=\"comparison\"><tr><th>contender</th><th>scenario</th><th>threads</th>"
                + "<th>calls/s before</th><th>after</th><th>change ±noise</th><th>p50 us before</th><th>after</th>"
                + "<th>change ±noise</th><th>p90</th><th>p99 us before</th><th>after</th><th>change ±noise</th>"
                + "<th>p99.9</th><th>verdict</th></tr>");
        for (Comparison.Row r : Comparison.rows(results, before)) {
            Level l = r.after();
            Comparison.Before b = r.before();
            h.append("<tr><td>")
                    .append(SvgChart.esc(l.contender()))
                    .append("</td><td>")
                    .append(SvgChart.esc(l.scenario()))
                    .append("</td><td>")
                    .append(l.threads())
                    .append("</td>")
                    .append(cell(b.throughput()))
                    .append(cell(l.throughput()))
                    .append(change(r, "calls/s"))
                    .append(cell(b.p50()))
                    .append(cell(l.p50Micros()))
                    .append(change(r, "p50"))
                    .append(change(r, "p90"))
                    .append(cell(b.p99()))
                    .append(cell(l.p99Micros()))
                    .append(change(r, "p99"))
                    .append(change(r, "p99.9"))
                    .append("<td class=\"")
                    .append(r.steady() ? "" : "down")
                    .append("\">")
                    .append(SvgChart.esc(r.verdict()))
                    .append("</td></tr>");
        }
        h.append("</table>\n");
    }

    private static String latency(boolean known, double v) {
        return known ? cell(v) : "<td>-</td>";
    }

    private static String cell(double v) {
        return "<td>" + SvgChart.number(v) + "</td>";
    }

    /** A change and its noise; coloured only when it is larger than the noise (green when better). */
    private static String change(Comparison.Row r, String measure) {
        Comparison.Change c = r.change(measure);
        String css = !r.steady() || !c.beyondNoise() ? "" : c.better() ? "up" : "down";
        return "<td class=\"" + css + "\">" + SvgChart.esc(c.text()) + "</td>";
    }
}
