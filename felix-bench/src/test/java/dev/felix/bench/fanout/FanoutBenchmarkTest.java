package dev.felix.bench.fanout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.bench.common.Stamp;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code felix bench fanout}: its options (defaults, --quick, usage errors naming the option) and the sequence
 * check every delivery goes through (what counts as lost, out of order, complete, and what is timed).
 */
class FanoutBenchmarkTest {

    @Test
    void defaults_quick_andExplicitValues() {
        FanoutBenchmark.Options d = FanoutBenchmark.Options.parse(new String[0]);
        assertThat(d).isEqualTo(new FanoutBenchmark.Options(List.of(1000, 10_000), 100, 100, 5, 10, 240, 3,
                List.of("felix", "nats", "nats-tls"), List.of(), Path.of("bench/results"), 1));

        FanoutBenchmark.Options q = FanoutBenchmark.Options.parse(new String[] {"--quick"});
        assertThat(q.runs()).isEqualTo(1);
        assertThat(q.seconds()).isEqualTo(5);
        assertThat(q.warmupSeconds()).isEqualTo(3);

        FanoutBenchmark.Options o = FanoutBenchmark.Options.parse(new String[] {"--runs=2", "--quick",
            "--subscribers=10,20", "--connections=5", "--systems=felix,nats", "--warmup=0", "--payload=0",
            "--set=quic_io_threads=2", "--set=subscriber_queue_policy=block"});
        assertThat(o.felixSettings()).containsExactly("quic_io_threads=2", "subscriber_queue_policy=block");
        assertThat(o.runs()).as("an explicit value wins over --quick wherever it stands").isEqualTo(2);
        assertThat(o.subscribers()).containsExactly(10, 20);
        assertThat(o.connections()).isEqualTo(5);
        assertThat(o.systems()).containsExactly("felix", "nats");
        assertThat(o.warmupSeconds()).isZero();
        assertThat(o.payloadBytes()).isZero();
        assertThat(o.nodes()).isEqualTo(1);

        assertThat(FanoutBenchmark.Options.parse(new String[] {"--nodes=3"}).nodes()).isEqualTo(3);
    }

    @Test
    void badValues_areUsageErrorsNamingTheOption() {
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--subscribers=10,lots"}))
                .hasMessageContaining("--subscribers").hasMessageContaining("lots");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--connections=0"}))
                .hasMessageContaining("--connections");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--systems=felix,kafka"}))
                .hasMessageContaining("kafka").hasMessageContaining("nats-tls");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--rate"}))
                .hasMessageContaining("--rate");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--set=quic_io_threads"}))
                .hasMessageContaining("--set").hasMessageContaining("KEY=VALUE");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--nodes=2"}))
                .hasMessageContaining("--nodes").hasMessageContaining("1 or 3");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--nodes=0"}))
                .hasMessageContaining("--nodes");
        assertThatThrownBy(() -> FanoutBenchmark.Options.parse(new String[] {"--fast"}))
                .hasMessageContaining("--fast");
    }

    @Test
    void deliveries_countLossDisorderAndAMissingTail_andTimeOnlyAfterTheWarmup() {
        Deliveries d = new Deliveries(3, 2, 2); // 3 subscribers on 2 connections; seq 0 and 1 are warm-up
        for (long seq = 0; seq < 5; seq++) {
            d.received(0, 0, Stamp.message(0, seq, System.nanoTime()));
        }
        d.received(1, 1, Stamp.message(0, 0, System.nanoTime()));
        d.received(1, 1, Stamp.message(0, 3, System.nanoTime())); // 1 and 2 never came
        d.received(1, 1, Stamp.message(0, 2, System.nanoTime())); // late: out of order, not a recovery
        d.received(1, 1, Stamp.message(0, 4, System.nanoTime()));
        d.received(2, 0, Stamp.message(0, 0, System.nanoTime())); // then nothing: 4 missing at the tail
        d.announced(2);

        assertThat(d.delivered()).isEqualTo(10);
        assertThat(d.complete(5)).as("subscribers with every sequence number behind them").isEqualTo(2);
        assertThat(d.lost(5)).isEqualTo(2 + 4);
        assertThat(d.disordered()).isEqualTo(1);
        assertThat(d.announced()).isEqualTo(2);
        assertThat(d.latencyMicros().getTotalCount()).as("warm-up messages are checked but not timed")
                .isEqualTo(3 + 3);

        d.ended(2, "connection_lost: gone");
        d.ended(2, "again");
        assertThat(d.endedCount()).isEqualTo(1);
        assertThat(d.firstEnd()).isEqualTo("connection_lost: gone");
        assertThat(d.complete(5)).as("an ended subscriber waits for nothing more").isEqualTo(3);
    }
}
