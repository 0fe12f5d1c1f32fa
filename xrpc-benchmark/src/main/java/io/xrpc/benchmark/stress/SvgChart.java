package io.xrpc.benchmark.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small line chart drawn as inline SVG, so that the report is one self-contained file: no
 * script library, no font or network fetch. Each chart is one panel of a small-multiples grid:
 * a title, units on both axes, a legend, and every data point a {@code circle.pt} with a tooltip.
 * The x axis is either categories spaced evenly (thread counts) or a linear scale (seconds).
 */
final class SvgChart {
    /** Colours that stay apart for the colour-blind too (Okabe and Ito's palette). */
    static final String[] COLOURS = {
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"
    };

    private static final int WIDTH = 420;
    private static final int HEIGHT = 260;
    private static final int LEFT = 62;
    private static final int RIGHT = 12;
    private static final int TOP = 30;
    private static final int BOTTOM = 44;

    /** One line: its name in the legend, colour, whether dashed, and points ({x, y}; a NaN y breaks the line). */
    record Series(String name, String colour, boolean dashed, List<double[]> points) {}

    private final String title;
    private final String xLabel;
    private final String yLabel;
    /** Labels of evenly spaced x positions 0, 1, 2...; null for a linear x axis. */
    private final List<String> categories;

    private final List<Series> series = new ArrayList<>();
    /** Labelled x positions ({@link #mark}), drawn as dotted vertical lines. */
    private final List<Object[]> marks = new ArrayList<>();

    SvgChart(String title, String xLabel, String yLabel, List<String> categories) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.categories = categories;
    }

    SvgChart add(Series s) {
        if (s.points().stream().anyMatch(p -> !Double.isNaN(p[1]))) {
            series.add(s);
        }
        return this;
    }

    /** The x axis's range, when several charts share it (a linear axis only); NaN: from the points. */
    private double fromX = Double.NaN;

    private double toX = Double.NaN;

    SvgChart xRange(double from, double to) {
        fromX = from;
        toX = to;
        return this;
    }

    /** Labels the x position {@code x} (of a linear axis): where a level of the run began, say. */
    SvgChart mark(double x, String label) {
        marks.add(new Object[] {x, label});
        return this;
    }

    boolean isEmpty() {
        return series.isEmpty();
    }

    /** Data points drawn (line breaks not counted). */
    int points() {
        return (int) series.stream()
                .flatMap(s -> s.points().stream())
                .filter(p -> !Double.isNaN(p[1]))
                .count();
    }

    String render() {
        double xMin = categories != null ? 0 : Double.MAX_VALUE;
        double xMax = categories != null ? Math.max(1, categories.size() - 1) : -Double.MAX_VALUE;
        double yMax = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                if (Double.isNaN(p[1])) {
                    continue;
                }
                if (categories == null) {
                    xMin = Math.min(xMin, p[0]);
                    xMax = Math.max(xMax, p[0]);
                }
                yMax = Math.max(yMax, p[1]);
            }
        }
        if (categories == null && !Double.isNaN(fromX)) {
            xMin = fromX;
            xMax = toX;
        }
        if (xMax <= xMin) {
            xMax = xMin + 1;
        }
        double step = niceStep(yMax <= 0 ? 1 : yMax / 4);
        double top = Math.max(step, Math.ceil(yMax / step) * step);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<figure class=\"chart\" data-points=\"%d\"><svg"
                        + " viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">",
                points(),
                WIDTH,
                HEIGHT,
                WIDTH,
                HEIGHT,
                esc(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" class=\"title\">%s</text>", LEFT, esc(title)));
        // Grid and y ticks.
        for (double v = 0; v <= top + step / 2; v += step) {
            double y = TOP + plotH - v / top * plotH;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"gridline\"/>",
                    LEFT,
                    LEFT + plotW,
                    y,
                    y));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>",
                    LEFT - 6,
                    y + 4,
                    number(v)));
        }
        // X ticks.
        if (categories != null) {
            int every = Math.max(1, (categories.size() + 7) / 8); // at most about 8 labels, so that none overlap
            for (int i = 0; i < categories.size(); i += every) {
                double x = xPos(i, xMin, xMax, plotW);
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
                        x,
                        TOP + plotH + 16,
                        esc(categories.get(i))));
            }
        } else {
            double xs = niceStep((xMax - xMin) / 5);
            for (double v = Math.ceil(xMin / xs) * xs; v <= xMax + xs / 1000; v += xs) {
                double x = xPos(v, xMin, xMax, plotW);
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>",
                        x,
                        TOP + plotH + 16,
                        number(v)));
            }
        }
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>",
                LEFT,
                LEFT + plotW,
                TOP + plotH,
                TOP + plotH));
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"axis\"/>",
                LEFT,
                LEFT,
                TOP,
                TOP + plotH));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" class=\"label\" text-anchor=\"middle\">%s</text>",
                LEFT + plotW / 2.0,
                HEIGHT - 8,
                esc(xLabel)));
        svg.append(String.format(
                Locale.ROOT,
                "<text transform=\"translate(14 %.1f) rotate(-90)\" class=\"label\""
                        + " text-anchor=\"middle\">%s</text>",
                TOP + plotH / 2.0,
                esc(yLabel)));
        if (categories == null) {
            for (Object[] m : marks) {
                double x = xPos(Math.max(xMin, Math.min(xMax, (double) m[0])), xMin, xMax, plotW);
                svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"mark\""
                                + " stroke=\"#999\" stroke-dasharray=\"2 3\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\">%s</text>",
                        x,
                        x,
                        TOP,
                        TOP + plotH,
                        x + 2,
                        TOP + 9,
                        esc((String) m[1])));
            }
        }
        // Lines and points.
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            StringBuilder dots = new StringBuilder();
            boolean gap = true;
            for (double[] p : s.points()) {
                if (Double.isNaN(p[1])) {
                    gap = true; // a break in the line, between two stretches of a run
                    continue;
                }
                double x = xPos(p[0], xMin, xMax, plotW);
                double y = TOP + plotH - p[1] / top * plotH;
                path.append(gap ? (path.isEmpty() ? "M" : " M") : " L")
                        .append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                gap = false;
                String xText = categories != null ? categories.get((int) p[0]) : number(p[0]);
                dots.append(String.format(
                        Locale.ROOT,
                        "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
                                + "<title>%s: %s, %s</title></circle>",
                        x,
                        y,
                        s.colour(),
                        esc(s.name()),
                        esc(xText),
                        number(p[1])));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                    path,
                    s.colour(),
                    s.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
            svg.append(dots);
        }
        svg.append("</svg><figcaption>");
        for (Series s : series) {
            svg.append(String.format(
                    Locale.ROOT,
                    "<span class=\"key\"><svg width=\"22\" height=\"10\"><line x1=\"0\" x2=\"22\""
                            + " y1=\"5\" y2=\"5\" stroke=\"%s\" stroke-width=\"3\"%s/></svg>%s</span>",
                    s.colour(),
                    s.dashed() ? " stroke-dasharray=\"5 3\"" : "",
                    esc(s.name())));
        }
        return svg.append("</figcaption></figure>\n").toString();
    }

    private static double xPos(double v, double min, double max, int plotW) {
        return LEFT + 10 + (v - min) / (max - min) * (plotW - 20);
    }

    /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    /** 1.5k, 32, 0.25, 2.1M: short labels for ticks and tooltips. */
    static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return trim(String.format(Locale.ROOT, "%.2f", v / 1e6)) + "M";
        }
        if (a >= 1e4) {
            return trim(String.format(Locale.ROOT, "%.1f", v / 1e3)) + "k";
        }
        if (a >= 100 || v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return trim(String.format(Locale.ROOT, a >= 1 ? "%.2f" : "%.3f", v));
    }

    private static String trim(String s) {
        return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
