package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code felix demo ...} through picocli, in-process, at tiny durations: the demos are wired in, their
 * flags pass through, and the exit status and last line carry the verdict. (The demos' own promises are
 * tested at length in felix-demos.)
 */
@Timeout(120)
class DemoCommandTest {

    @Test
    void stateDivergence_watchMode_keepsItsPromiseAndSaysSoLast() {
        // 2-second phases (the first is the fresh JVM's warm-up): a 4-second stall at the default 400
        // changes/s against a 64-change watch queue, so the broker must end the paused mirror's watch.
        InProcessCli.Result r = run("demo", "state-divergence", "--mode", "watch", "--duration", "2", "--queue-capacity", "64",
                "--no-tui");

        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("=== watch (memory cache, every consumer a CacheMirror) ===")
                .contains("watch ended by the broker");
        assertThat(lastLine(r.out())).startsWith("RESULT: as promised — watch: every mirror converged");
    }

    @Test
    void slowConsumer_keepsItsPromiseAndSaysSoLast() {
        InProcessCli.Result r = run("demo", "slow-consumer", "--policy", "drop_new", "--duration", "1", "--rate", "2000",
                "--no-tui");

        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("policy = drop_new");
        assertThat(lastLine(r.out())).startsWith("RESULT: as promised — drop_new:");
    }

    @Test
    void eachDemosHelpIsItsOwnUsage() {
        InProcessCli.Result divergence = run("demo", "state-divergence", "--help");
        assertThat(divergence.code()).isZero();
        assertThat(divergence.out()).startsWith("Felix demo: local state divergence")
                .contains("--mode M            lossy | lossless | durable | watch").contains("--stalled N");

        InProcessCli.Result slow = run("demo", "slow-consumer", "--help");
        assertThat(slow.code()).isZero();
        assertThat(slow.out()).startsWith("Felix demo: slow-consumer isolation").contains("--policy P");

        InProcessCli.Result demo = run("demo", "--help");
        assertThat(demo.code()).isZero();
        assertThat(demo.out()).contains("Usage: felix demo").contains("state-divergence").contains("slow-consumer");
        assertThat(run("--help").out()).contains("demo");
    }

    @Test
    void aUsageErrorExitsTwo() {
        InProcessCli.Result r = run("demo", "state-divergence", "--mode", "gossip");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("unknown mode gossip");
        assertThat(r.out()).isEmpty();
    }

    private static String lastLine(String out) {
        List<String> lines = Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    private static InProcessCli.Result run(String... args) {
        return InProcessCli.run(args);
    }
}
