package dev.felix.demos.divergence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.demos.common.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DivergenceArgsTest {

    @Test
    void defaultsAreUpstreamsWithEveryMode() throws Exception {
        DivergenceConfig c = DivergenceArgs.parse();
        assertThat(c.rate()).isEqualTo(400);
        assertThat(c.keys()).isEqualTo(2000);
        assertThat(c.consumers()).isEqualTo(3);
        assertThat(c.payloadBytes()).isEqualTo(64);
        assertThat(c.queueCapacity()).isEqualTo(512);
        assertThat(c.phaseSecs()).isEqualTo(4);
        assertThat(c.stalled()).isEqualTo(1);
        assertThat(c.live()).isTrue();
        assertThat(c.modes()).containsExactly(DivergenceModes.LOSSY, DivergenceModes.LOSSLESS, DivergenceModes.DURABLE,
                DivergenceModes.WATCH);
    }

    @Test
    void flagsAreReadLeftToRight() throws Exception {
        DivergenceConfig c = DivergenceArgs.parse("--rate", "100", "--keys", "500", "--consumers", "4", "--payload",
                "4", "--queue-capacity", "64", "--duration", "2", "--mode", "lossless", "--mode", "durable", "--no-tui",
                "--stalled", "3");
        assertThat(c.rate()).isEqualTo(100);
        assertThat(c.keys()).isEqualTo(500);
        assertThat(c.consumers()).isEqualTo(4);
        assertThat(c.stalled()).isEqualTo(3);
        assertThat(c.payloadBytes()).as("padded to the header").isEqualTo(18);
        assertThat(c.queueCapacity()).isEqualTo(64);
        assertThat(c.phaseSecs()).isEqualTo(2);
        assertThat(c.modes()).containsExactly(DivergenceModes.DURABLE);
        assertThat(c.live()).isFalse();
        assertThat(DivergenceArgs.parse("--mode", "both").modes())
                .containsExactly(DivergenceModes.LOSSY, DivergenceModes.LOSSLESS);
        assertThat(DivergenceArgs.parse("--mode", "all").modes()).hasSize(4).contains(DivergenceModes.WATCH);
        assertThat(DivergenceArgs.parse("--mode", "watch").modes()).containsExactly(DivergenceModes.WATCH);
    }

    @Test
    void nodes3_runsTheWatchModeOnACluster_andIsAUsageErrorWithAnyOtherMode() throws Exception {
        assertThat(DivergenceArgs.parse().nodes()).as("default: one in-process broker").isEqualTo(1);
        DivergenceConfig cluster = DivergenceArgs.parse("--mode", "watch", "--nodes", "3");
        assertThat(cluster.nodes()).isEqualTo(3);
        assertThat(cluster.clustered()).isTrue();
        assertThat(cluster.modes()).containsExactly(DivergenceModes.WATCH);

        assertThatThrownBy(() -> DivergenceArgs.parse("--nodes", "3")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--nodes 3 runs the watch mode only").hasMessageContaining("add --mode watch");
        assertThatThrownBy(() -> DivergenceArgs.parse("--mode", "durable", "--nodes", "3"))
                .isInstanceOf(UsageException.class).hasMessageContaining("add --mode watch");
        assertThatThrownBy(() -> DivergenceArgs.parse("--mode", "watch", "--nodes", "2"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--nodes must be 1").hasMessageContaining("or 3");
        assertThatThrownBy(() -> DivergenceArgs.parse("--mode", "watch", "--nodes", "5"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--nodes");
        assertThat(DivergenceArgs.usage()).contains("--nodes N");
    }

    @Test
    void requiresTwoConsumers() {
        assertThatThrownBy(() -> DivergenceArgs.parse("--consumers", "1")).isInstanceOf(UsageException.class)
                .hasMessageContaining("at least 2");
    }

    @Test
    void leavesAtLeastOneHealthyConsumer() {
        assertThatThrownBy(() -> DivergenceArgs.parse("--stalled", "3")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--stalled must be less than --consumers (3)");
        assertThatThrownBy(() -> DivergenceArgs.parse("--stalled", "0")).hasMessageContaining("--stalled");
    }

    @Test
    void errorsNameTheProblem() {
        assertThatThrownBy(() -> DivergenceArgs.parse("--rate")).hasMessage("missing value for --rate");
        assertThatThrownBy(() -> DivergenceArgs.parse("--frobnicate")).hasMessage("unknown argument: --frobnicate");
        assertThatThrownBy(() -> DivergenceArgs.parse("--mode", "gossip"))
                .hasMessage("unknown mode gossip; expected lossy, lossless, durable, watch, both, or all");
        assertThatThrownBy(() -> DivergenceArgs.parse("--rate", "fast")).hasMessageContaining("--rate")
                .hasMessageContaining("'fast'");
        assertThatThrownBy(() -> DivergenceArgs.parse("--keys", "70000")).hasMessageContaining("65536");
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = StateDivergenceDemo.run(new String[] {"--rate", "5", "-h"}, print(out), print(err));
        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("Felix demo: local state divergence")
                .contains("--mode M            lossy | lossless | durable | watch; both = lossy and\n")
                .contains("--stalled N");
        assertThat(err.size()).isZero();
    }

    @Test
    void aUsageErrorExitsTwoWithTheMessageOnStderr() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(StateDivergenceDemo.run(new String[] {"--consumers", "1"}, print(out), print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("at least 2");
        assertThat(out.size()).isZero();
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
