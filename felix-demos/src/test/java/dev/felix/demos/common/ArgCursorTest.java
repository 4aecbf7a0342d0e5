package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.demos.divergence.DivergenceArgs;
import dev.felix.demos.slowconsumer.SlowConsumerArgs;
import dev.felix.demos.slowconsumer.SlowConsumerConfig;
import org.junit.jupiter.api.Test;

/** Demo flags read {@code --flag value} and {@code --flag=value} alike, as every other felix command does. */
class ArgCursorTest {

    @Test
    void flagEqualsValueReadsLikeFlagSpaceValue() throws Exception {
        ArgCursor a = new ArgCursor(new String[] {"--rate=5000", "--no-tui", "--policy", "block"});
        assertThat(a.next()).isEqualTo("--rate");
        assertThat(a.longValue("--rate", 1, 10_000)).isEqualTo(5000);
        assertThat(a.next()).isEqualTo("--no-tui");
        assertThat(a.next()).isEqualTo("--policy");
        assertThat(a.value("--policy")).isEqualTo("block");
        assertThat(a.hasNext()).isFalse();
    }

    @Test
    void bothDemosAcceptTheEqualsForm() throws Exception {
        SlowConsumerConfig c = SlowConsumerArgs.parse("--rate=5000", "--duration=2", "--policy=block", "--no-tui");
        assertThat(c.targetRate()).isEqualTo(5000);
        assertThat(c.phaseSecs()).isEqualTo(2);
        assertThat(DivergenceArgs.parse("--mode=watch", "--duration=2").phaseSecs()).isEqualTo(2);
        assertThatThrownBy(() -> SlowConsumerArgs.parse("--rate=-1")).isInstanceOf(UsageException.class)
                .hasMessageContaining("--rate");
    }
}
