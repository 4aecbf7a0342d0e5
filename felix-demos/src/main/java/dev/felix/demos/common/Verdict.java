package dev.felix.demos.common;

import java.util.List;

/**
 * Whether a run kept what its mode promises.
 *
 * @param name      the mode or policy
 * @param summary   what was checked, in one phrase, when it held
 * @param problems  each way it did not (empty when it held)
 */
public record Verdict(String name, String summary, List<String> problems) {

    public Verdict {
        problems = List.copyOf(problems);
    }

    public boolean kept() {
        return problems.isEmpty();
    }

    /** The last line of a demo: whether every run kept its promise. */
    public static String lastLine(List<Verdict> verdicts) {
        StringBuilder b = new StringBuilder();
        boolean all = verdicts.stream().allMatch(Verdict::kept);
        b.append(all ? "RESULT: as promised — " : "RESULT: NOT AS PROMISED — ");
        for (int i = 0; i < verdicts.size(); i++) {
            Verdict v = verdicts.get(i);
            if (i > 0) {
                b.append("; ");
            }
            b.append(v.name()).append(": ").append(v.kept() ? v.summary() : String.join(", ", v.problems()));
        }
        return b.toString();
    }
}
