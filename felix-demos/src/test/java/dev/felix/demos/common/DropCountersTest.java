package dev.felix.demos.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DropCountersTest {

    private static final String TEXT = """
            # HELP felix_dropped_events_total events dropped
            # TYPE felix_dropped_events_total counter
            felix_dropped_events_total{checkpoint="broker_ingress"} 0.0
            felix_dropped_events_total{checkpoint="subscriber_queue"} 1234.0
            felix_dropped_events_total{checkpoint="writer_queue"} 2.0
            felix_blocked_total{checkpoint="subscriber_queue"} 7.0
            felix_catchup_detached_total 1.0
            felix_published_events_total 99.0
            """;

    @Test
    void keepsEverySeriesAboveZeroWhoseNameMentionsADrop() {
        assertThat(DropCounters.drops(TEXT)).containsExactly(
                new DropCounters.Series("felix_dropped_events_total{checkpoint=\"subscriber_queue\"}", 1234),
                new DropCounters.Series("felix_dropped_events_total{checkpoint=\"writer_queue\"}", 2));
        assertThat(DropCounters.total(DropCounters.drops(TEXT))).isEqualTo(1236);
    }

    @Test
    void flowControlCountersAreSeparate() {
        assertThat(DropCounters.flowControl(TEXT)).extracting(DropCounters.Series::series).containsExactly(
                "felix_blocked_total{checkpoint=\"subscriber_queue\"}", "felix_catchup_detached_total");
    }
}
