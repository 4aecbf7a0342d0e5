package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.StartPosition;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An ephemeral shard's memory is gone when it restarts; a resume against an earlier incarnation is told
 * so with an {@code incarnation} gap before anything else, never silently restarted at new offsets.
 */
@Timeout(30)
class IncarnationTest {

    @Test
    void resumeAgainstAnotherIncarnation_startsWithAnIncarnationGapThenTheNewIncarnationsEvents() throws Exception {
        try (Fixture f = new Fixture(Fixture.config())) {
            Shard shard = f.shard("s");
            Fixture.publishEach(shard, "e", 0, 5);
            long stale = shard.incarnation() + 1;
            Subscription sub = shard.subscribe(new SubscribeRequest(StartPosition.at(42), null, null, stale))
                    .get(10, TimeUnit.SECONDS);
            Collector c = f.track(Collector.draining(sub));
            c.awaitCoveredTo(5);
            assertThat(c.deliveries().get(0)).isInstanceOfSatisfying(GapNotice.class, g -> {
                assertThat(g.reason()).isEqualTo(GapNotice.Reason.INCARNATION);
                assertThat(g.from()).isEqualTo(42);
                assertThat(g.to()).isEqualTo(Long.MAX_VALUE);
                assertThat(g.missed()).isEqualTo(-1);
            });
            assertThat(c.payloads()).containsExactly("e0", "e1", "e2", "e3", "e4");
            assertThat(sub.startOffset()).isZero();
        }
    }

    @Test
    void resumeAgainstTheSameIncarnation_isAnOrdinaryResume() throws Exception {
        try (Fixture f = new Fixture(Fixture.config())) {
            Shard shard = f.shard("s");
            Fixture.publishEach(shard, "e", 0, 5);
            Subscription sub = shard.subscribe(new SubscribeRequest(StartPosition.at(3), null, null,
                    shard.incarnation())).get(10, TimeUnit.SECONDS);
            Collector c = f.track(Collector.draining(sub));
            c.awaitCoveredTo(5);
            assertThat(c.gaps()).isEmpty();
            assertThat(c.payloads()).containsExactly("e3", "e4");
        }
    }

    @Test
    void resumeAgainstAnotherIncarnationAtTheTail_stillReportsTheGapBeforeLiveEvents() throws Exception {
        try (Fixture f = new Fixture(Fixture.config())) {
            Shard shard = f.shard("s"); // nothing published: the tail is 0
            Subscription sub = shard.subscribe(new SubscribeRequest(StartPosition.at(7), null, null, 12345))
                    .get(10, TimeUnit.SECONDS);
            Collector c = f.track(Collector.draining(sub));
            Fixture.publishEach(shard, "live", 0, 2);
            c.awaitCoveredTo(2);
            assertThat(c.deliveries().get(0)).isInstanceOf(GapNotice.class);
            assertThat(c.payloads()).containsExactly("live0", "live1");
        }
    }

    @Test
    void eachShardGetsItsOwnNonZeroIncarnation() {
        try (Fixture f = new Fixture(Fixture.config())) {
            Stream s = f.stream("multi", 3);
            assertThat(s.shard(0).incarnation()).isPositive();
            assertThat(s.shard(0).incarnation()).isNotEqualTo(s.shard(1).incarnation());
        }
    }
}
