package dev.felix.demos.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The checker of {@code felix demo cluster-relay-load}: what balances (delivered + announced == published) and what
 * it reports as a violation (silent skips, duplicates, a notice that does not start where delivery stopped, a resync
 * naming an offset already received).
 */
class SubscriberLedgerTest {

    @Test
    void everyOffsetDeliveredOrAnnounced_balances() {
        SubscriberLedger l = new SubscriberLedger("s", 10);
        l.events(10, 5); // 10..14
        l.gap(15, 19, "relay_lag");
        l.events(20, 3); // 20..22
        l.resync(23); // closed with resync naming exactly where it stood
        l.tooOld(25); // its resubscribe from 23 was refused: 23..24 announced
        l.events(25, 5); // 25..29

        assertThat(l.violations()).isEmpty();
        assertThat(l.next()).isEqualTo(30);
        SubscriberLedger.Account all = l.account(10, 29);
        assertThat(all).isEqualTo(new SubscriberLedger.Account(20, 13, 5, 2));
        assertThat(all.balanced()).isTrue();
        assertThat(l.account(15, 24)).isEqualTo(new SubscriberLedger.Account(10, 3, 5, 2));
        assertThat(l.resyncs()).isEqualTo(1);
    }

    @Test
    void aSilentSkip_isAViolation_andTheRangeDoesNotBalance() {
        SubscriberLedger l = new SubscriberLedger("s", 0);
        l.events(0, 5);
        l.events(8, 2); // 5..7 never came and nothing said so

        assertThat(l.violations()).singleElement().asString().contains("5..7").contains("silent loss");
        SubscriberLedger.Account a = l.account(0, 9);
        assertThat(a.delivered() + a.announced()).isEqualTo(7);
        assertThat(a.balanced()).isFalse();
    }

    @Test
    void aDuplicate_aMisplacedGap_andAResyncBehindTheCursor_areViolations() {
        SubscriberLedger l = new SubscriberLedger("s", 0);
        l.events(0, 5);
        l.events(3, 1);
        assertThat(l.violations()).anyMatch(v -> v.contains("offset 3 arrived again"));

        SubscriberLedger g = new SubscriberLedger("g", 0);
        g.events(0, 5);
        g.gap(7, 9, "relay_lag"); // 5..6 neither delivered nor inside the gap
        assertThat(g.violations()).anyMatch(v -> v.contains("does not start where delivery stopped (5)"));
        assertThat(g.account(0, 9).balanced()).isFalse();

        SubscriberLedger r = new SubscriberLedger("r", 0);
        r.events(0, 5);
        r.resync(3);
        assertThat(r.violations()).anyMatch(v -> v.contains("resync named offset 3"));
    }

    @Test
    void aResyncPastTheCursor_isCounted_andTheSubscriberResumesFromItsCursor() {
        SubscriberLedger l = new SubscriberLedger("s", 0);
        l.events(0, 5);
        l.resync(9); // the node had 5..8 queued for it and dropped them at the close

        assertThat(l.resyncsAhead()).isEqualTo(1);
        assertThat(l.resyncAheadEvents()).isEqualTo(4);
        assertThat(l.next()).as("resume from what it received, not from the named offset").isEqualTo(5);
        l.events(5, 5);
        assertThat(l.violations()).isEmpty();
        assertThat(l.account(0, 9).balanced()).isTrue();
    }

    @Test
    void relayMetricsAreReadFromAPrometheusScrape_byNameAndLabels() {
        String scrape = """
            # TYPE felix_relay_dropped_total counter
            felix_relay_dropped_total{reason="queue_full",} 3.0
            felix_relay_dropped_total{reason="stale",} 12.0
            felix_relay_fenced_total 4.0
            felix_publish_frames_total{encoding="json",} 9.0
            """;
        var m = ClusterRelayLoadRun.metrics(scrape);
        assertThat(m).containsEntry("felix_relay_dropped_total{reason=\"stale\"}", 12.0)
                .containsEntry("felix_relay_dropped_total{reason=\"queue_full\"}", 3.0)
                .containsEntry("felix_relay_fenced_total", 4.0).hasSize(3);
    }

    @Test
    void options_defaultsAndErrorsNamingTheFlag() {
        var d = ClusterRelayLoadRun.Options.parse(new String[0]);
        assertThat(d).isEqualTo(new ClusterRelayLoadRun.Options(11, 3, 4, 12, 250, null));
        assertThat(d.rate(1)).isEqualTo(250);
        assertThat(d.rate(3)).isEqualTo(4000);
        var o = ClusterRelayLoadRun.Options.parse(new String[] {"--seed=3", "--steps", "2", "--subscribers=20"});
        assertThat(o.seed()).isEqualTo(3);
        assertThat(o.steps()).isEqualTo(2);
        assertThat(o.subscribers()).isEqualTo(20);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterRelayLoadRun.Options.parse(
                new String[] {"--subscribers=2"})).hasMessageContaining("--subscribers").hasMessageContaining("6");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterRelayLoadRun.Options.parse(
                new String[] {"--steps=x"})).hasMessageContaining("--steps").hasMessageContaining("'x'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterRelayLoadRun.Options.parse(
                new String[] {"--fast=1"})).hasMessageContaining("--fast");
    }
}
