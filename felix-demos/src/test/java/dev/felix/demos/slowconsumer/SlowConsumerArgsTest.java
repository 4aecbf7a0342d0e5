package dev.felix.demos.slowconsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.demos.common.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SlowConsumerArgsTest {

    @Test
    void defaultsAreUpstreamsWithEveryPolicy() throws Exception {
        SlowConsumerConfig c = SlowConsumerArgs.parse();
        assertThat(c.targetRate()).isEqualTo(20_000);
        assertThat(c.subscribers()).isEqualTo(3);
        assertThat(c.payloadBytes()).isEqualTo(256);
        assertThat(c.queueCapacity()).isEqualTo(512);
        assertThat(c.phaseSecs()).isEqualTo(5);
        assertThat(c.live()).isTrue();
        assertThat(c.policies()).containsExactly(IsolationPolicies.DROP_NEW, IsolationPolicies.BLOCK,
                IsolationPolicies.CATCH_UP);
    }

    @Test
    void readsPolicySelection() throws Exception {
        assertThat(SlowConsumerArgs.parse("--policy", "block").policies()).containsExactly(IsolationPolicies.BLOCK);
        assertThat(SlowConsumerArgs.parse("--policy", "catch_up").policies())
                .containsExactly(IsolationPolicies.CATCH_UP);
        assertThat(SlowConsumerArgs.parse("--policy", "both").policies())
                .containsExactly(IsolationPolicies.DROP_NEW, IsolationPolicies.BLOCK);
        SlowConsumerConfig c = SlowConsumerArgs.parse("--rate", "5000", "--subscribers", "4", "--payload", "8",
                "--queue-capacity", "64", "--duration", "2", "--no-tui");
        assertThat(c.targetRate()).isEqualTo(5000);
        assertThat(c.subscribers()).isEqualTo(4);
        assertThat(c.payloadBytes()).as("padded to the header").isEqualTo(16);
        assertThat(c.queueCapacity()).isEqualTo(64);
        assertThat(c.phaseSecs()).isEqualTo(2);
        assertThat(c.live()).isFalse();
    }

    @Test
    void rejectsASingleSubscriber() {
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--subscribers", "1")).isInstanceOf(UsageException.class)
                .hasMessageContaining("at least 2");
    }

    @Test
    void errorsNameTheProblem() {
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--policy")).hasMessage("missing value for --policy");
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--nope")).hasMessage("unknown argument: --nope");
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--policy", "drop_old"))
                .hasMessage("unknown policy drop_old; expected drop_new, block, catch_up, both, or all");
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--duration", "0")).hasMessageContaining("--duration");
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(SlowConsumerDemo.run(new String[] {"--help"}, print(out), print(err))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("Felix demo: slow-consumer isolation")
                .contains("--policy P           drop_new | block | catch_up | both | all (default all)");
        assertThat(err.size()).isZero();
    }

    @Test
    void aUsageErrorExitsTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(SlowConsumerDemo.run(new String[] {"--policy", "x"}, print(new ByteArrayOutputStream()),
                print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown policy x");
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
