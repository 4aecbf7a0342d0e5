package dev.felix.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code felix bench cluster} options: defaults, --quick, and a usage error naming the option for bad values. */
class ClusterBenchmarkOptionsTest {

    @Test
    void defaults_quick_andExplicitValues() {
        ClusterBenchmark.Options d = ClusterBenchmark.Options.parse(new String[0]);
        assertThat(d).isEqualTo(new ClusterBenchmark.Options(2000, 20_000, 256, 256, 20, true, Path.of("bench/results")));

        ClusterBenchmark.Options q = ClusterBenchmark.Options.parse(new String[] {"--quick"});
        assertThat(q.latencyMessages()).isEqualTo(300);
        assertThat(q.throughputMessages()).isEqualTo(3000);
        assertThat(q.kills()).isEqualTo(5);

        ClusterBenchmark.Options o = ClusterBenchmark.Options.parse(new String[] {"--quick", "--kills=0", "--no-nats",
            "--payload=1024", "--window=64", "--results=/tmp/r"});
        assertThat(o.kills()).isZero();
        assertThat(o.nats()).isFalse();
        assertThat(o.payloadBytes()).isEqualTo(1024);
        assertThat(o.window()).isEqualTo(64);
        assertThat(o.resultsDir()).isEqualTo(Path.of("/tmp/r"));
        assertThat(o.killRaftLeader()).as("stream leaders wherever Raft leads, unless asked").isFalse();
        assertThat(ClusterBenchmark.Options.parse(new String[] {"--kill-raft-leader"}).killRaftLeader()).isTrue();

        // An explicit value wins over --quick wherever it stands.
        assertThat(ClusterBenchmark.Options.parse(new String[] {"--latency=50", "--quick"}).latencyMessages()).isEqualTo(50);
    }

    @Test
    void badValues_areUsageErrorsNamingTheOption() {
        assertThatThrownBy(() -> ClusterBenchmark.Options.parse(new String[] {"--kills=-1"}))
                .hasMessageContaining("--kills");
        assertThatThrownBy(() -> ClusterBenchmark.Options.parse(new String[] {"--latency=lots"}))
                .hasMessageContaining("--latency").hasMessageContaining("lots");
        assertThatThrownBy(() -> ClusterBenchmark.Options.parse(new String[] {"--payload=4"}))
                .hasMessageContaining("--payload");
        assertThatThrownBy(() -> ClusterBenchmark.Options.parse(new String[] {"--window"}))
                .hasMessageContaining("--window");
        assertThatThrownBy(() -> ClusterBenchmark.Options.parse(new String[] {"--fast"}))
                .hasMessageContaining("--fast");
    }
}
