package dev.felix.cluster.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Relay settings: defaults in one place, every bad value refused at the call with the setting's name. */
class RelaySettingsTest {

    @Test
    void defaults_areTheIssuesNumbers() {
        RelaySettings s = RelaySettings.defaults();
        assertThat(s.workers()).isEqualTo(16);
        assertThat(s.queueBatches()).isEqualTo(1024);
        assertThat(s.deadline()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.closesPerWindow()).isEqualTo(50);
        assertThat(s.closeWindow()).isEqualTo(Duration.ofMillis(10));
        assertThat(s.dispatcherBacklog()).isEqualTo(RelaySettings.DEFAULT_DISPATCHER_BACKLOG);
    }

    @Test
    void badValues_areRefusedAtTheCall_namingTheSetting() {
        assertThatThrownBy(() -> RelaySettings.builder().workers(0))
                .hasMessage("cluster_relay_workers must be within [1, 1024], was 0");
        assertThatThrownBy(() -> RelaySettings.builder().queueBatches(-1))
                .hasMessageStartingWith("cluster_relay_queue_batches must be within [1, ");
        assertThatThrownBy(() -> RelaySettings.builder().deadline(Duration.ZERO))
                .hasMessage("cluster_relay_deadline_ms must be at least 1 ms, was 0 ms");
        assertThatThrownBy(() -> RelaySettings.builder().closesPerWindow(0))
                .hasMessageStartingWith("cluster_relay_closes_per_window must be within [1, ");
        assertThatThrownBy(() -> RelaySettings.builder().closeWindow(Duration.ofNanos(10)))
                .hasMessageStartingWith("cluster_relay_close_window_ms must be at least 1 ms");
        assertThatThrownBy(() -> RelaySettings.builder().dispatcherBacklog(0))
                .hasMessageStartingWith("cluster_relay_dispatcher_backlog must be within [1, ");
        assertThatThrownBy(() -> new RelaySettings(16, 1024, Duration.ofSeconds(2), 50, Duration.ofMillis(10), 0))
                .as("a direct construction is checked as the builder is")
                .hasMessageStartingWith("cluster_relay_dispatcher_backlog");
    }

    @Test
    void theBuilderCarriesEveryValue() {
        RelaySettings s = RelaySettings.builder().workers(4).queueBatches(8).deadline(Duration.ofMillis(300))
                .closesPerWindow(5).closeWindow(Duration.ofMillis(20)).dispatcherBacklog(64).build();
        assertThat(s).isEqualTo(new RelaySettings(4, 8, Duration.ofMillis(300), 5, Duration.ofMillis(20), 64));
    }
}
