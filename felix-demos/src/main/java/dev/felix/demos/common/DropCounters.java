package dev.felix.demos.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The broker's checkpoint counters after a run, read from its Prometheus text. Upstream prints every
 * series whose name contains {@code dropped} or {@code rejected} with a value above zero; so does this,
 * keyed by the whole series (name and labels), since Felix labels one counter per checkpoint.
 */
public final class DropCounters {

    private DropCounters() {
    }

    /** One counter series and its value. */
    public record Series(String series, long value) {
    }

    /** Drop (and rejection) series above zero, sorted by series. */
    public static List<Series> drops(String prometheusText) {
        return select(prometheusText, "dropped", "rejected");
    }

    /**
     * Series that explain the lossless policies: {@code block} waits and {@code catch_up} detaches and
     * replays, above zero.
     */
    public static List<Series> flowControl(String prometheusText) {
        return select(prometheusText, "blocked", "catchup", "replayed");
    }

    /** Series that show a watched cache ending watches that fell behind ({@code watch_ended}), above zero. */
    public static List<Series> watchEnds(String prometheusText) {
        return select(prometheusText, "watch_overflows");
    }

    private static List<Series> select(String text, String... needles) {
        TreeMap<String, Long> found = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String series = line.substring(0, space);
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            if (!matches(name, needles)) {
                continue;
            }
            double value;
            try {
                value = Double.parseDouble(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            if (value > 0) {
                found.put(series, (long) value);
            }
        }
        List<Series> out = new ArrayList<>();
        found.forEach((k, v) -> out.add(new Series(k, v)));
        return out;
    }

    private static boolean matches(String name, String[] needles) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (String n : needles) {
            if (lower.contains(n)) {
                return true;
            }
        }
        return false;
    }

    /** Sum of the series' values. */
    public static long total(List<Series> series) {
        return series.stream().mapToLong(Series::value).sum();
    }
}
