package dev.felix.cluster.relay;

import static dev.felix.cluster.relay.RelayFixture.batch;
import static dev.felix.cluster.relay.RelayFixture.key;
import static dev.felix.cluster.relay.RelayFixture.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.cluster.relay.RelayFixture.Sink;
import dev.felix.core.ErrorCode;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The relay's mechanisms on a fake clock and a manual executor (nothing runs until the test runs it), one test
 * per promise of issue 11; each fails with its mechanism removed.
 */
class RelayTest {

    private static final Duration DEADLINE = Duration.ofSeconds(2);

    /** One worker, one queued batch: easy to fill, and every shard shares the queue. */
    private static RelaySettings tiny() {
        return RelaySettings.builder().workers(1).queueBatches(1).build();
    }

    @Test
    void eventsReachSubscribersInOrder_throughTheWorkers() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(4).build());
        List<RelayKey> keys = List.of(key("a"), key("b"), key("c"), key("d"), key("e"));
        Map<RelayKey, List<Sink>> sinks = new HashMap<>();
        for (RelayKey k : keys) {
            for (int i = 0; i < 3; i++) {
                Sink s = new Sink();
                f.relay.subscribe(k, StreamKind.EPHEMERAL, s, i % 2 == 0, 0);
                sinks.computeIfAbsent(k, x -> new ArrayList<>()).add(s);
            }
        }
        for (int round = 0; round < 20; round++) {
            for (RelayKey k : keys) {
                f.relay.receive(k, batch(round * 3L, 3));
            }
            if (round % 7 == 0) {
                f.run(); // deliveries interleave with arrivals
            }
        }
        f.run();
        for (RelayKey k : keys) {
            for (Sink s : sinks.get(k)) {
                assertThat(s.offsets()).as(k.toString()).containsExactlyElementsOf(range(0, 60));
                assertThat(s.gaps()).isEmpty();
            }
        }
        assertThat(f.counter("felix.relay.delivered")).isEqualTo(5 * 3 * 60);
        assertThat(keys.stream().map(f.relay::workerOf).distinct().count()).as("spread over workers").isGreaterThan(1);
        assertThat(f.registry.find("felix.relay.lag").timer().count()).isEqualTo(5 * 20);
    }

    @Test
    void aFullWorkerQueue_fencesExactlyThatEventsRecipients() {
        RelayFixture f = new RelayFixture(tiny());
        Sink a = new Sink();
        RelayedSubscription subA = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, a, false, 0);
        Sink plainB = new Sink();
        Sink gapB = new Sink();
        RelayedSubscription subPlainB = f.relay.subscribe(key("b"), StreamKind.EPHEMERAL, plainB, false, 0);
        RelayedSubscription subGapB = f.relay.subscribe(key("b"), StreamKind.EPHEMERAL, gapB, true, 0);

        f.relay.receive(key("a"), batch(0, 1)); // fills the worker's one slot before the worker runs
        f.relay.receive(key("b"), batch(0, 1)); // no room: lost
        f.run();

        assertThat(subPlainB.fenced()).isTrue();
        assertThat(gapB.items).as("the gap is announced at once, not at the next batch (there may be none)")
                .containsExactly(new GapNotice(0, 0, 0, GapNotice.Reason.RELAY_LAG));
        assertThat(subGapB.fenced()).as("announced: live again after its gap").isFalse();
        assertThat(subA.fenced()).as("a shard on the same full queue lost nothing").isFalse();
        assertThat(f.counter("felix.relay.dropped", "reason", "queue_full")).isEqualTo(1);
        assertThat(f.counter("felix.relay.fenced")).isEqualTo(2);

        f.relay.receive(key("a"), batch(1, 1));
        f.run();
        f.relay.receive(key("b"), batch(1, 1));
        f.run();
        f.tick();

        assertThat(a.offsets()).containsExactly(0L, 1L);
        assertThat(gapB.items).hasSize(2);
        assertThat(gapB.items.get(0)).isEqualTo(new GapNotice(0, 0, 0, GapNotice.Reason.RELAY_LAG));
        assertThat(gapB.offsets()).containsExactly(1L);
        assertThat(plainB.items).isEmpty();
        assertThat(plainB.ended.code()).isEqualTo(ErrorCode.RESYNC);
        assertThat(plainB.ended.offset()).isEqualTo(0);
    }

    @Test
    void aLostNoReplayEvent_fencesNothing_whileAStoredEventLostOnTheSameQueueDoes() {
        RelayFixture f = new RelayFixture(tiny());
        Sink holder = new Sink();
        f.relay.subscribe(key("holder"), StreamKind.EPHEMERAL, holder, false, 0);
        Sink presence = new Sink();
        RelayedSubscription subPresence = f.relay.subscribe(key("presence"), StreamKind.EPHEMERAL_NO_REPLAY,
                presence, false, 0);
        Sink orders = new Sink();
        RelayedSubscription subOrders = f.relay.subscribe(key("orders"), StreamKind.DURABLE, orders, false, 0);

        f.relay.receive(key("holder"), batch(0, 1)); // takes the worker's one slot
        f.relay.receive(key("presence"), batch(0, 2)); // queue full: both lost
        f.relay.receive(key("orders"), batch(0, 3));
        f.run();

        assertThat(subPresence.fenced()).as("no_replay: counted, never fenced").isFalse();
        assertThat(subOrders.fenced()).isTrue();
        assertThat(f.counter("felix.relay.dropped", "reason", "ephemeral")).isEqualTo(2);
        assertThat(f.counter("felix.relay.dropped", "reason", "queue_full")).isEqualTo(3);
        assertThat(f.counter("felix.relay.fenced")).isEqualTo(1);
        assertThat(f.relay.pendingCloses()).isEqualTo(1);

        f.relay.receive(key("presence"), batch(2, 1));
        f.run();
        f.relay.receive(key("orders"), batch(3, 1));
        f.run();

        assertThat(holder.offsets()).containsExactly(0L);
        assertThat(presence.items).as("the next presence event, no gap, no close").hasSize(1);
        assertThat(presence.offsets()).containsExactly(2L);
        assertThat(orders.items).isEmpty();
        f.tick();
        assertThat(presence.ended).isNull();
        assertThat(orders.ended.code()).isEqualTo(ErrorCode.RESYNC);
    }

    @Test
    void anEventThatWaitedOutItsDeadline_isLost_neverDelivered() {
        RelayFixture f = new RelayFixture(RelaySettings.defaults());
        Sink early = new Sink();
        f.relay.subscribe(key("early"), StreamKind.EPHEMERAL, early, false, 0);
        f.relay.receive(key("early"), batch(0, 1));
        f.clock.advance(DEADLINE.minusNanos(1));
        f.run();
        assertThat(early.offsets()).as("one nanosecond inside its deadline").containsExactly(0L);

        Sink plain = new Sink();
        Sink gaps = new Sink();
        RelayedSubscription subPlain = f.relay.subscribe(key("late"), StreamKind.EPHEMERAL, plain, false, 0);
        RelayedSubscription subGaps = f.relay.subscribe(key("late"), StreamKind.EPHEMERAL, gaps, true, 0);
        f.relay.receive(key("late"), batch(0, 4));
        f.clock.advance(DEADLINE); // the dispatcher and the worker only run now
        f.run();

        assertThat(plain.items).isEmpty();
        assertThat(gaps.items).containsExactly(new GapNotice(0, 0, 3, GapNotice.Reason.RELAY_LAG));
        assertThat(subPlain.fenced()).isTrue();
        assertThat(f.counter("felix.relay.fenced")).isEqualTo(2);
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isEqualTo(4);

        f.relay.receive(key("late"), batch(4, 1));
        f.run();
        assertThat(gaps.items.get(0)).isEqualTo(new GapNotice(0, 0, 3, GapNotice.Reason.RELAY_LAG));
        assertThat(gaps.offsets()).containsExactly(4L);
        assertThat(plain.items).isEmpty();
    }

    @Test
    void anEventBehindABacklog_isDeliveredInsideItsDeadline_andTheStallHoldsNobodyElseBack() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build());
        Sink slow = new Sink();
        RelayedSubscription subSlow = f.relay.subscribe(key("slow"), StreamKind.EPHEMERAL, slow, false, 0);
        Sink sameShard = new Sink();
        f.relay.subscribe(key("slow"), StreamKind.EPHEMERAL, sameShard, false, 0);
        Sink other = new Sink();
        f.relay.subscribe(key("other"), StreamKind.EPHEMERAL, other, true, 0);

        slow.stalled = true;
        f.relay.receive(key("slow"), batch(0, 1));
        f.relay.receive(key("other"), batch(0, 1));
        f.run();
        f.clock.advance(Duration.ofMillis(500));
        f.relay.receive(key("slow"), batch(1, 1)); // behind slow#0 for the stalled subscriber
        f.relay.receive(key("other"), batch(1, 1));
        f.run();
        assertThat(other.offsets()).as("another shard on the same worker").containsExactly(0L, 1L);
        assertThat(sameShard.offsets()).as("another subscriber of the same shard").containsExactly(0L, 1L);

        f.clock.advance(Duration.ofMillis(1400)); // 1.9 s: both batches inside their deadlines
        f.tick();
        assertThat(slow.items).isEmpty();
        slow.stalled = false;
        subSlow.writable();
        f.run();
        assertThat(slow.offsets()).containsExactly(0L, 1L);
        assertThat(subSlow.fenced()).isFalse();
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isZero();
    }

    @Test
    void anEventBehindABacklog_isLostPastItsDeadline_whileTheOneBehindItStillArrives() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build());
        Sink slow = new Sink();
        RelayedSubscription subSlow = f.relay.subscribe(key("slow"), StreamKind.EPHEMERAL, slow, true, 0);

        slow.stalled = true;
        f.relay.receive(key("slow"), batch(0, 1)); // received at 0 s: its deadline is 2 s
        f.run();
        f.clock.advance(Duration.ofMillis(500));
        f.relay.receive(key("slow"), batch(1, 1)); // received at 0.5 s, behind #0: its deadline is 2.5 s
        f.run();
        f.clock.advance(Duration.ofMillis(1500)); // 2 s: the stalled write of #0 is cut off
        f.tick();
        assertThat(subSlow.fenced()).isTrue();
        assertThat(slow.items).isEmpty();
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isEqualTo(1);

        f.clock.advance(Duration.ofMillis(400)); // 2.4 s: #1 is still inside its deadline
        slow.stalled = false;
        subSlow.writable();
        f.run();
        assertThat(slow.items).hasSize(2);
        assertThat(slow.items.get(0)).isEqualTo(new GapNotice(0, 0, 0, GapNotice.Reason.RELAY_LAG));
        assertThat(slow.offsets()).containsExactly(1L);
        assertThat(subSlow.fenced()).as("the gap was announced, and #1 followed it").isFalse();
    }

    @Test
    void aStalledWrite_isCutOffAtTheDeadline() {
        RelayFixture f = new RelayFixture(RelaySettings.defaults());
        Sink stuck = new Sink();
        RelayedSubscription subStuck = f.relay.subscribe(key("a"), StreamKind.DURABLE, stuck, false, 0);
        Sink fine = new Sink();
        f.relay.subscribe(key("a"), StreamKind.DURABLE, fine, false, 0);

        stuck.stalled = true;
        f.relay.receive(key("a"), batch(0, 1));
        f.run();
        f.clock.advance(Duration.ofSeconds(1));
        f.relay.receive(key("a"), batch(1, 1));
        f.run();
        f.clock.advance(Duration.ofSeconds(1).minusNanos(1));
        f.tick();
        assertThat(subStuck.fenced()).as("still inside the deadline: the write may yet complete").isFalse();

        f.clock.advance(Duration.ofNanos(1));
        f.tick();
        assertThat(subStuck.fenced()).isTrue();
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isEqualTo(1);

        stuck.stalled = false; // the sink recovers after the cut-off: the lost batch is never delivered late
        subStuck.writable();
        f.relay.receive(key("a"), batch(2, 1));
        f.run();
        assertThat(stuck.items).isEmpty();
        assertThat(fine.offsets()).as("never held back by the stalled write").containsExactly(0L, 1L, 2L);
        f.tick();
        assertThat(stuck.ended.code()).isEqualTo(ErrorCode.RESYNC);
        assertThat(stuck.ended.offset()).isZero();
    }

    @Test
    void aStalledSubscriberWhoseBacklogIsFull_isFencedAlone() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).queueBatches(2).build());
        Sink stuck = new Sink();
        RelayedSubscription subStuck = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, stuck, false, 0);
        Sink fine = new Sink();
        RelayedSubscription subFine = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, fine, false, 0);

        stuck.stalled = true;
        for (int i = 0; i < 2; i++) {
            f.relay.receive(key("a"), batch(i, 1));
            f.run();
            assertThat(subStuck.fenced()).as("backlog of " + (i + 1)).isFalse();
        }
        f.relay.receive(key("a"), batch(2, 1)); // a third batch for the stalled subscriber: over its backlog of 2
        f.run();

        assertThat(subStuck.fenced()).isTrue();
        assertThat(subFine.fenced()).isFalse();
        assertThat(fine.offsets()).containsExactly(0L, 1L, 2L);
        assertThat(f.counter("felix.relay.dropped", "reason", "queue_full")).isEqualTo(1);
        stuck.stalled = false;
        subStuck.writable();
        f.run();
        assertThat(stuck.items).as("fenced: not even the backlog it had").isEmpty();
    }

    @Test
    void aStalledGapCapableSubscriber_isToldOfItsLastLostBatch_afterWhatCameBefore_withoutALaterBatch() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).queueBatches(2).build());
        Sink stuck = new Sink();
        RelayedSubscription sub = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, stuck, true, 0);

        stuck.stalled = true;
        for (int i = 0; i < 3; i++) { // #0 and #1 wait in its backlog; #2 is one too many: lost
            f.relay.receive(key("a"), batch(i, 1));
            f.run();
        }
        assertThat(sub.fenced()).isTrue();
        stuck.stalled = false;
        sub.writable();
        f.run();

        assertThat(stuck.items).hasSize(3);
        assertThat(stuck.offsets()).containsExactly(0L, 1L);
        assertThat(stuck.items.get(2)).as("announced although no batch follows the lost one")
                .isEqualTo(new GapNotice(0, 2, 2, GapNotice.Reason.RELAY_LAG));
        assertThat(sub.fenced()).isFalse();
        f.relay.receive(key("a"), batch(3, 1));
        f.run();
        assertThat(stuck.offsets()).containsExactly(0L, 1L, 3L);
    }

    @Test
    void dispatcherLag_fencesEverySubscription() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().dispatcherBacklog(2).build());
        Sink a = new Sink();
        Sink aGaps = new Sink();
        Sink b = new Sink();
        Sink presence = new Sink();
        RelayedSubscription subA = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, a, false, 0);
        RelayedSubscription subAGaps = f.relay.subscribe(key("a"), StreamKind.EPHEMERAL, aGaps, true, 0);
        RelayedSubscription subB = f.relay.subscribe(key("b"), StreamKind.DURABLE, b, false, 0);
        RelayedSubscription subPresence = f.relay.subscribe(key("p"), StreamKind.EPHEMERAL_NO_REPLAY, presence,
                false, 0);

        assertThat(f.relay.receive(key("a"), batch(0, 1))).isTrue();
        assertThat(f.relay.receive(key("b"), batch(0, 1))).isTrue();
        f.clock.advance(Duration.ofMillis(300));
        assertThat(f.registry.find("felix.relay.dispatcher.lag").gauge().value()).isEqualTo(0.3);
        assertThat(f.relay.receive(key("a"), batch(1, 1))).as("the dispatcher is behind its source").isFalse();

        assertThat(subA.fenced()).isTrue();
        assertThat(subAGaps.fenced()).isTrue();
        assertThat(subB.fenced()).as("another shard: unknown loss fences every subscription").isTrue();
        assertThat(subPresence.fenced()).isFalse();
        assertThat(f.counter("felix.relay.fenced")).isEqualTo(3);

        f.run();
        f.relay.receive(key("a"), batch(2, 1));
        f.run();
        f.tick();
        assertThat(a.items).isEmpty();
        assertThat(b.items).isEmpty();
        assertThat(a.ended.offset()).isZero();
        assertThat(b.ended.offset()).isZero();
        assertThat(aGaps.offsets()).as("offsets name what the gap-capable subscriber missed").containsExactly(0L, 2L);
        assertThat(aGaps.gaps()).containsExactly(new GapNotice(0, 1, 1, GapNotice.Reason.RELAY_LAG));
    }

    @Test
    void theCloser_closesInPacedBatches_andCountsThem() {
        RelayFixture f = new RelayFixture(RelaySettings.defaults());
        List<Sink> sinks = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            Sink s = new Sink();
            f.relay.subscribe(key("hot"), StreamKind.EPHEMERAL, s, false, 7);
            sinks.add(s);
        }
        f.relay.receive(key("hot"), batch(7, 1));
        f.clock.advance(DEADLINE);
        f.run();
        assertThat(f.counter("felix.relay.fenced")).isEqualTo(120);
        assertThat(f.relay.pendingCloses()).isEqualTo(120);

        f.tick();
        assertThat(closed(sinks)).isEqualTo(50);
        f.tick();
        f.clock.advance(Duration.ofMillis(9));
        f.tick();
        assertThat(closed(sinks)).as("the window has not ended").isEqualTo(50);
        f.clock.advance(Duration.ofMillis(1));
        f.tick();
        assertThat(closed(sinks)).isEqualTo(100);
        f.clock.advance(Duration.ofMillis(10));
        f.tick();
        assertThat(closed(sinks)).isEqualTo(120);
        assertThat(f.counter("felix.relay.paced.closes")).isEqualTo(120);
        assertThat(f.relay.pendingCloses()).isZero();
        for (Sink s : sinks) {
            assertThat(s.ended.code()).isEqualTo(ErrorCode.RESYNC);
            assertThat(s.ended.offset()).isEqualTo(7);
            assertThat(s.ended.message()).contains("t1/default/hot shard 0", "from offset 7");
        }
    }

    @Test
    void aGapCapableDurableSubscriber_healsFromTheLog_andEndsWithEveryOffset() {
        List<EventBatch> log = new ArrayList<>(); // the shard's log: one event per batch, batch i at offset i
        Map<Long, Sink> sinkOf = new HashMap<>();
        RelayFixture[] fixture = new RelayFixture[1];
        ResumeHook fromLog = (sub, from) -> fixture[0].executor.execute(() -> { // read elsewhere, as a server would
            long end = log.size();
            Sink sink = sinkOf.get(sub.id());
            for (long o = from; o < end; o++) {
                assertThat(sink.offer(log.get((int) o))).isTrue();
            }
            sub.rejoin(end);
        });
        RelayFixture f = new RelayFixture(tiny(), fromLog);
        fixture[0] = f;
        Sink holder = new Sink();
        f.relay.subscribe(key("holder"), StreamKind.EPHEMERAL, holder, false, 0);
        Sink healed = new Sink();
        RelayedSubscription subHealed = f.relay.subscribe(key("orders"), StreamKind.DURABLE, healed, true, 0);
        sinkOf.put(subHealed.id(), healed);
        Sink plain = new Sink();
        f.relay.subscribe(key("orders"), StreamKind.DURABLE, plain, false, 0);

        commit(log, 0);
        f.relay.receive(key("orders"), log.get(0));
        f.run();

        f.relay.receive(key("holder"), batch(0, 1)); // takes the only worker's one slot
        commit(log, 1);
        f.relay.receive(key("orders"), log.get(1)); // lost: queue full
        commit(log, 2);
        commit(log, 3); // committed on the leader, not yet received here
        f.run();
        assertThat(subHealed.fenced()).as("rejoined after the heal").isFalse();
        f.relay.receive(key("holder"), batch(1, 1));
        f.relay.receive(key("orders"), log.get(2)); // lost again, but the heal already delivered it
        f.relay.receive(key("orders"), log.get(3));
        f.run();
        for (int i = 4; i < 10; i++) {
            commit(log, i);
            f.relay.receive(key("orders"), log.get(i));
            if (i == 4) {
                f.clock.advance(DEADLINE); // 4 waits out its deadline: lost, healed again
            }
            f.run();
        }
        f.tick();

        assertThat(healed.offsets()).containsExactlyElementsOf(range(0, 10));
        assertThat(healed.gaps()).isEmpty();
        assertThat(plain.offsets()).containsExactly(0L);
        assertThat(plain.ended.code()).isEqualTo(ErrorCode.RESYNC);
        assertThat(plain.ended.offset()).isEqualTo(1);
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isEqualTo(1);
        assertThat(f.counter("felix.relay.dropped", "reason", "queue_full")).isEqualTo(3);
    }

    @Test
    void aSubscriptionStartedBehind_getsWhatArrivedDuringItsReplay_afterItRejoins_withoutANewLoss() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build(), null);
        Sink sink = new Sink();
        RelayedSubscription s = f.relay.subscribeBehind(key("orders"), StreamKind.DURABLE, sink, false, 0);
        assertThat(s.fenced()).as("healing until it rejoins").isTrue();

        f.relay.receive(key("orders"), batch(5, 2)); // arrives live while the replay reads 0..4
        f.run();
        assertThat(sink.offsets()).as("nothing from the relay during the replay").isEmpty();
        assertThat(s.heldFrom()).isEqualTo(5);
        for (long o = 0; o < 5; o++) {
            assertThat(s.sink().offer(batch(o, 1))).isTrue(); // the replay offers directly
        }
        s.rejoin(5);
        f.run();
        f.relay.receive(key("orders"), batch(7, 1));
        f.run();

        assertThat(sink.offsets()).containsExactlyElementsOf(range(0, 8));
        assertThat(f.counter("felix.relay.fenced")).as("no loss: the held batches filled the rest").isZero();
    }

    @Test
    void aReplayThatRejoinsShortOfWhatTheRelayHeld_isALossAndHealsAgain() {
        List<Long> resumedAt = new ArrayList<>();
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build(), (sub, from) -> resumedAt.add(from));
        Sink sink = new Sink();
        RelayedSubscription s = f.relay.subscribeBehind(key("orders"), StreamKind.DURABLE, sink, true, 0);
        f.relay.receive(key("orders"), batch(5, 2));
        f.run();
        assertThat(s.sink().offer(batch(0, 3))).isTrue();
        s.rejoin(3); // 3 and 4 are neither replayed nor held
        f.run();

        assertThat(sink.offsets()).containsExactlyElementsOf(range(0, 3));
        assertThat(s.fenced()).as("healing again").isTrue();
        assertThat(resumedAt).containsExactly(3L);
    }

    @Test
    void whatArrivesDuringAReplayAndOutlivesTheDeadline_isLeftToTheReplay_notCountedAsDropped() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build(), null);
        Sink sink = new Sink();
        RelayedSubscription s = f.relay.subscribeBehind(key("orders"), StreamKind.DURABLE, sink, true, 0);
        f.relay.receive(key("orders"), batch(2, 1));
        f.run();
        f.clock.advance(DEADLINE.plusMillis(1));
        f.tick();
        f.relay.receive(key("orders"), batch(3, 1));
        f.run();
        assertThat(s.sink().offer(batch(0, 3))).isTrue(); // the replay read 0..2 from the log
        s.rejoin(3);
        f.run();

        assertThat(sink.offsets()).containsExactlyElementsOf(range(0, 4));
        assertThat(f.counter("felix.relay.dropped", "reason", "stale")).isZero();
        assertThat(f.counter("felix.relay.fenced")).isZero();
    }

    @Test
    void aHeldBatchLetGoOfDuringAReplay_movesWhereTheReplayMustReach_soTheLastEventIsNeverWaitedForInVain() {
        RelayFixture f = new RelayFixture(RelaySettings.builder().workers(1).build(), null);
        RelayedSubscription s = f.relay.subscribeBehind(key("orders"), StreamKind.DURABLE, new Sink(), true, 0);
        f.relay.receive(key("orders"), batch(5, 2)); // the last batch published: held for after the replay
        f.run();
        assertThat(s.heldFrom()).isEqualTo(5);
        f.clock.advance(DEADLINE.plusMillis(1));
        f.tick(); // cut off while held: only the replay can deliver 5 and 6 now

        assertThat(s.heldFrom()).as("the replay must read past the batch let go of").isEqualTo(7);
    }

    private static void commit(List<EventBatch> log, int offset) {
        assertThat(log).hasSize(offset);
        log.add(batch(offset, 1));
    }

    private static long closed(List<Sink> sinks) {
        return sinks.stream().filter(s -> s.ended != null).count();
    }
}
