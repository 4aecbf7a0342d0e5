package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code felix stream create --no-replay} is for ephemeral streams: with {@code --durable} it is a usage error. */
class NoReplayOptionTest {

    @Test
    void noReplayWithDurable_isAUsageError_namingTheFix() {
        InProcessCli.Result r = InProcessCli.run("stream", "create", "t1/default/presence", "--durable", "--no-replay");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--no-replay applies to ephemeral streams only",
                "drop --durable or --no-replay");
    }
}
