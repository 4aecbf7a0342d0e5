package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} and {@code docs/operations.md} cannot drift: every metric family a broker exposes is
 * documented there, and every documented one is exposed; durations are in seconds; the latency
 * histograms fill as the broker works; {@code felix_build_info} carries the version.
 */
@Timeout(60)
class MetricsDocTest {

    @TempDir
    Path dir;

    @Test
    void everyExposedMetricIsDocumentedAndEveryDocumentedOneExposed() throws Exception {
        String scrape;
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            StreamRef s = StreamRef.parse("t1/default/ledger");
            c.streams().create(s, new StreamSpec(1, true, "on_commit", null, null));
            Subscription sub = c.subscribe(SubscribeOptions.of(s));
            c.publisher(s).publish(new byte[] {1});
            assertThat(sub.next(Duration.ofSeconds(10))).isNotNull();
            scrape = broker.scrapeMetrics();
        }
        Set<String> exposed = new TreeSet<>();
        Set<String> otherFamilies = new TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) \\S+$").matcher(scrape);
        while (type.find()) {
            (type.group(1).startsWith("felix_") ? exposed : otherFamilies).add(type.group(1));
        }
        String doc = Files.readString(Path.of(System.getProperty("felix.repo.root", "..")).resolve("docs/operations.md"));
        String section = doc.substring(doc.indexOf("## Metrics"), doc.indexOf("\n## ", doc.indexOf("## Metrics") + 1));
        Set<String> documented = new TreeSet<>();
        Matcher name = Pattern.compile("`(felix_[a-z0-9_]+)").matcher(section);
        while (name.find()) {
            documented.add(name.group(1));
        }
        assertThat(documented).as("documented in docs/operations.md ## Metrics").containsExactlyInAnyOrderElementsOf(exposed);
        for (String other : otherFamilies) {
            String prefix = other.substring(0, other.indexOf('_') + 1);
            assertThat(section).as(other + " is covered by a documented family").contains("`" + prefix + "*`");
        }

        assertThat(exposed).noneMatch(n -> n.contains("nanos"))
                .contains("felix_storage_sync_duration_seconds", "felix_publish_ack_latency_seconds",
                        "felix_fanout_delay_seconds", "felix_build_info",
                        // the kernel's counters of the listener's socket (the suite runs on Linux with epoll)
                        "felix_udp_receive_drops_total", "felix_udp_receive_queue_bytes");
        assertThat(value(scrape, "felix_udp_receive_drops_total")).as("a quiet broker drops nothing").isZero();
        assertThat(value(scrape, "felix_storage_sync_duration_seconds_count")).isPositive();
        assertThat(value(scrape, "felix_publish_ack_latency_seconds_count")).isEqualTo(1);
        assertThat(value(scrape, "felix_fanout_delay_seconds_count")).isEqualTo(1);
        assertThat(scrape).containsPattern("felix_build_info\\{commit=\"[^\"]+\",version=\"" + Pattern.quote(
                BuildInfo.current().version()) + "\"} 1");
    }

    private static double value(String scrape, String sample) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + "(\\{[^}]*})? (\\S+)$").matcher(scrape);
        assertThat(m.find()).as(sample).isTrue();
        return Double.parseDouble(m.group(2));
    }

}
