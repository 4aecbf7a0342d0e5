package dev.felix.core.stream;

import static dev.felix.core.testing.Fixture.ROOMY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Coverage;
import dev.felix.core.testing.Fixture;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Where a subscription starts: latest, earliest, an offset (mid-batch, at the tail, past it, below the
 * ring), and what a replaying subscriber is told when the ring drops its position while it reads.
 */
class SubscribePositionTest {

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Shard shard(String name) {
        fx = new Fixture(Fixture.config());
        return fx.shard(name);
    }

    private Shard shardWithRing(String name, int events, long bytes) {
        fx = new Fixture(Fixture.config().withRing(events, bytes));
        return fx.shard(name);
    }

    private static FelixException subscribeFails(Shard shard, StartPosition start) {
        return Await.failure(shard.subscribe(SubscribeRequest.from(start)));
    }

    @Test
    void latest_receivesOnlyEventsPublishedAfterIt() {
        Shard shard = shard("latest");
        Fixture.publishEach(shard, "old", 0, 3);

        Collector c = fx.manual(shard, StartPosition.LATEST, null, ROOMY);
        Fixture.publish(shard, "new0", "new1");

        assertThat(c.startOffset()).isEqualTo(3);
        c.awaitCoveredTo(5);
        assertThat(c.events()).containsExactly("3=new0", "4=new1");
    }

    @Test
    void earliest_replaysFromTheOldestRetainedThenContinuesLive() {
        Shard shard = shard("earliest");
        Fixture.publish(shard, "a", "b");
        Fixture.publish(shard, "c");

        Collector c = fx.manual(shard, StartPosition.EARLIEST, null, ROOMY);
        c.awaitCoveredTo(3);
        Fixture.publish(shard, "d");
        c.awaitCoveredTo(4);

        assertThat(c.startOffset()).isZero();
        assertThat(c.events()).containsExactly("0=a", "1=b", "2=c", "3=d");
        assertThat(c.gaps()).isEmpty();
        assertThat(fx.broker.metrics().replayedEvents.sum()).isEqualTo(3);
    }

    @Test
    void earliest_smallRing_startsAtTheOldestEventStillHeld() {
        Shard shard = shardWithRing("earliest-ring", 4, 1 << 20);
        Fixture.publishEach(shard, "e", 0, 10);

        Collector c = fx.manual(shard, StartPosition.EARLIEST, null, ROOMY);
        c.awaitCoveredTo(10);

        assertThat(c.startOffset()).isEqualTo(6);
        assertThat(shard.info().oldestOffset()).isEqualTo(6);
        assertThat(c.payloads()).containsExactly("e6", "e7", "e8", "e9");
        assertThat(c.gaps()).isEmpty();
    }

    @Test
    void earliest_ringBoundByBytes_keepsWhatFitsTheByteLimit() {
        Shard shard = shardWithRing("earliest-bytes", 1_000, 10);
        Fixture.publish(shard, "aaaa");
        Fixture.publish(shard, "bbbb");
        Fixture.publish(shard, "cccc");

        Collector c = fx.manual(shard, StartPosition.EARLIEST, null, ROOMY);
        c.awaitCoveredTo(3);

        assertThat(c.startOffset()).isEqualTo(1);
        assertThat(c.payloads()).containsExactly("bbbb", "cccc");
    }

    @Test
    void atOffset_inTheMiddleOfABatch_deliveryStartsExactlyThere() {
        Shard shard = shard("mid-batch");
        Fixture.publish(shard, "p0", "p1", "p2", "p3", "p4"); // one batch, offsets 0..4

        Collector c = fx.manual(shard, StartPosition.at(2), null, ROOMY);
        c.awaitCoveredTo(5);

        assertThat(c.startOffset()).isEqualTo(2);
        EventBatch first = c.batches().get(0);
        assertThat(first.baseOffset()).isEqualTo(2);
        assertThat(first.eventCount()).isEqualTo(3);
        assertThat(first.payloadBytes()).isEqualTo(6);
        assertThat(c.events()).containsExactly("2=p2", "3=p3", "4=p4");
    }

    @Test
    void atOffset_atTheTail_isLive_sameBatchInstanceAsOtherLiveSubscribers() {
        Shard shard = shard("at-tail");
        Fixture.publish(shard, "a", "b");
        Collector live = fx.manual(shard, StartPosition.LATEST, null, ROOMY);

        Collector atTail = fx.manual(shard, StartPosition.at(2), null, ROOMY);
        assertThat(atTail.startOffset()).isEqualTo(2);
        assertThat(atTail.subscription.queuedEvents()).isZero();
        Fixture.publish(shard, "c");

        atTail.awaitCoveredTo(3);
        live.awaitCoveredTo(3);
        assertThat(atTail.batches()).hasSize(1);
        assertThat(atTail.batches().get(0)).isSameAs(live.batches().get(0));
        assertThat(atTail.events()).containsExactly("2=c");
    }

    @Test
    void atOffset_pastTheTail_isCursorInFuture_namingTheTail() {
        Shard shard = shard("future");
        Fixture.publish(shard, "a", "b", "c");

        FelixException e = subscribeFails(shard, StartPosition.at(4));

        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
        assertThat(e.error().offset()).isEqualTo(3);
        assertThat(shard.info().subscribers()).isZero();
    }

    @Test
    void atOffset_belowTheRing_isCursorTooOld_namingTheOldest_andTheOldestItselfWorks() {
        Shard shard = shardWithRing("too-old", 4, 1 << 20);
        Fixture.publishEach(shard, "e", 0, 10);

        FelixException e = subscribeFails(shard, StartPosition.at(5));
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
        assertThat(e.error().offset()).isEqualTo(6);
        assertThat(subscribeFails(shard, StartPosition.at(0)).error().offset()).isEqualTo(6);

        Collector c = fx.manual(shard, StartPosition.at(6), null, ROOMY);
        c.awaitCoveredTo(10);
        assertThat(c.payloads()).containsExactly("e6", "e7", "e8", "e9");
    }

    @Test
    void emptyShard_latestEarliestAndZeroAllStartAtZero_oneIsInTheFuture() {
        Shard shard = shard("empty");

        for (StartPosition p : List.of(StartPosition.LATEST, StartPosition.EARLIEST, StartPosition.at(0))) {
            assertThat(fx.manual(shard, p, null, ROOMY).startOffset()).as(p.toString()).isZero();
        }
        FelixException e = subscribeFails(shard, StartPosition.at(1));
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
        assertThat(e.error().offset()).isZero();
    }

    /**
     * A replaying subscriber stalls with its queue full while the ring moves on: when it drains, it is
     * told exactly which offsets the ring dropped ({@code retention}), then reads on contiguously and
     * joins live delivery.
     */
    @ParameterizedTest
    @EnumSource(value = QueuePolicy.class, names = {"DROP_NEW", "DROP_OLD", "BLOCK"})
    void replay_positionFallsOutOfTheRing_gapNamesExactlyTheLostRange_thenContiguous(QueuePolicy policy) {
        Shard shard = shardWithRing("retention", 8, 1 << 20);
        Fixture.publishEach(shard, "e", 0, 20); // ring holds 12..19
        Collector replaying = fx.manual(shard, StartPosition.at(12), policy, new QueueLimits(2, 1 << 20));
        Collector live = fx.draining(shard, StartPosition.LATEST, policy, ROOMY);
        assertThat(replaying.subscription.queuedEvents()).isEqualTo(2); // 12 and 13, then full

        Fixture.publishEach(shard, "e", 20, 10); // ring now holds 22..29; replay is not fed live
        assertThat(replaying.subscription.queuedEvents()).isEqualTo(2);

        replaying.awaitCoveredTo(30);
        Fixture.publish(shard, "e30");
        replaying.awaitCoveredTo(31);

        assertThat(Coverage.render(replaying.deliveries()).subList(0, 4)).containsExactly(
                "batch 12..12", "batch 13..13", "gap 14..21 retention", "batch 22..22");
        assertThat(replaying.gaps()).containsExactly(new GapNotice(0, 14, 21, GapNotice.Reason.RETENTION));
        assertThat(replaying.payloads()).containsExactly(
                "e12", "e13", "e22", "e23", "e24", "e25", "e26", "e27", "e28", "e29", "e30");
        assertThat(fx.broker.metrics().retentionMissedEvents.sum()).isEqualTo(8);
        live.awaitCoveredTo(31);
        assertThat(replaying.batches().get(replaying.batches().size() - 1))
                .as("back on live delivery").isSameAs(live.batches().get(live.batches().size() - 1));
    }
}
