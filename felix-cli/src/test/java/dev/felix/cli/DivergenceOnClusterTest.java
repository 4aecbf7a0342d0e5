package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code felix demo state-divergence --mode watch --nodes 3}: the watch mode's scenario, unchanged, against three
 * real {@code felix server} processes forming a cluster (the cache created through one node, the writer and every
 * mirror on the cache's leader). The stall must reach the broker (it ends the paused mirror's watch) and the
 * verdict must be the single-node watch mode's: every mirror converged, the publisher held its rate.
 */
@Timeout(120)
class DivergenceOnClusterTest {

    @Test
    void stateDivergence_watchMode_onThreeNodeProcesses_keepsTheSingleNodeVerdict() {
        // As DemoCommandTest's single-node run: 2-second phases, a 4-second stall at 400 changes/s against a
        // 64-change watch queue, so the broker must end the paused mirror's watch.
        InProcessCli.Result r = InProcessCli.run("demo", "state-divergence", "--mode", "watch", "--nodes", "3",
                "--duration", "2", "--queue-capacity", "64", "--no-tui");
        System.out.println(r.out() + r.err()); // the run's report, kept in the test's output

        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("=== watch (memory cache, every consumer a CacheMirror) ===")
                .containsPattern("brokers +3 felix server processes \\(n1, n2, n3\\) in one cluster; the cache on n[123]")
                .contains("watch ended by the broker");
        assertThat(verdictLine(r.out())).startsWith("watch:    as promised — every mirror converged (");
        assertThat(lastLine(r.out())).startsWith("RESULT: as promised — watch: every mirror converged");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count())
                .as("every node process is gone").isZero();
    }

    @Test
    void nodes3WithoutTheWatchMode_isAUsageErrorNamingTheFix() {
        InProcessCli.Result r = InProcessCli.run("demo", "state-divergence", "--nodes", "3");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--nodes 3 runs the watch mode only").contains("add --mode watch");
        assertThat(r.out()).isEmpty();
    }

    private static String verdictLine(String out) {
        return Arrays.stream(out.split("\n")).map(String::strip).filter(l -> l.startsWith("watch:")).findFirst()
                .orElse("");
    }

    private static String lastLine(String out) {
        List<String> lines = Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
}
