package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongUnaryOperator;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HeartbeatSender}'s timing and routing, with its Raft client and server replaced by a {@link Channel} and a
 * {@link View} the test drives. The real thing, a connection that stops carrying answers between node processes, is
 * {@code StalledRaftConnectionTest}'s; these are what it cannot see (when the next heartbeat goes after a reconnect)
 * or cannot make happen on demand.
 */
class HeartbeatSenderTest {

    /** Long enough that a test never sees a second tick: every further send comes from something else. */
    private static final long INTERVAL = 30_000;
    private static final long GIVE_UP = 300;
    private static final long AFTER_RECONNECT = 100;
    private static final RaftPeer LEADER = RaftPeer.newBuilder().setId("n1").setAddress("127.0.0.1:1").build();
    private static final RaftPeer SELF = RaftPeer.newBuilder().setId("n2").setAddress("127.0.0.1:2").build();

    private final Liveness liveness = Liveness.monotonic();
    private final AtomicInteger timedOut = new AtomicInteger();
    private HeartbeatSender sender;

    @AfterEach
    void close() {
        if (sender != null) {
            sender.close();
        }
    }

    /** One heartbeat as the channel got it. */
    private record Sent(long atMillis, Heartbeat beat, RaftPeerId to, CompletableFuture<Object> reply) {
    }

    /** Records sends and reconnects; every reply stays open unless the test completes it. */
    private final class Channel implements HeartbeatSender.Channel {
        final List<Sent> sent = new CopyOnWriteArrayList<>();
        final List<Long> reconnectedAt = new CopyOnWriteArrayList<>();
        /** Heartbeats given up when each reconnect came (later heartbeats may time out too). */
        final List<Integer> timedOutAtReconnect = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<?> send(Heartbeat beat, RaftPeer leader) {
            Sent s = new Sent(liveness.nowMillis(), beat, leader == null ? null : leader.getId(),
                    new CompletableFuture<>());
            sent.add(s);
            return s.reply();
        }

        @Override
        public void reconnect(RaftPeerId target, Throwable cause) {
            assertThat(target).isEqualTo(LEADER.getId());
            assertThat(HeartbeatRetry.timedOut(cause)).as("reconnected after a timeout").isTrue();
            timedOutAtReconnect.add(timedOut.get());
            reconnectedAt.add(liveness.nowMillis());
        }
    }

    /** A follower of {@link #LEADER} (or its leader, when {@code leading}); {@code heard} dates the leader's appends. */
    private final class View implements HeartbeatSender.RaftView {
        final RaftPeer leader;
        final boolean leading;
        final LongUnaryOperator heard;
        final AtomicInteger looks = new AtomicInteger();
        /** Heartbeat tasks run: each begins by asking for the leader. */
        final AtomicInteger asked = new AtomicInteger();

        View(RaftPeer leader, boolean leading, LongUnaryOperator heard) {
            this.leader = leader;
            this.leading = leading;
            this.heard = heard;
        }

        @Override
        public RaftPeer leaderKnownHere() {
            asked.incrementAndGet();
            return leader;
        }

        @Override
        public boolean leadsReady() {
            return leading;
        }

        @Override
        public long leaderHeardAt(RaftPeerId id) {
            looks.incrementAndGet();
            return heard.applyAsLong(liveness.nowMillis());
        }
    }

    private Channel start(View view) {
        return start(view, GIVE_UP);
    }

    private Channel start(View view, long giveUpMillis) {
        Channel channel = new Channel();
        sender = new HeartbeatSender(SELF.getId().toString(), 7, List::of, liveness, view, channel,
                new HeartbeatSender.Timing(INTERVAL, giveUpMillis, 1_000, AFTER_RECONNECT), timedOut::incrementAndGet);
        sender.start();
        return channel;
    }

    @Test
    void aHeartbeatLostWhileTheLeaderIsHeard_reconnects_andSendsTheNextOverTheNewConnectionAtOnce() {
        // The leader's appends keep arriving (heard "now" at every look): the connection is what failed.
        Channel channel = start(new View(LEADER, false, now -> now));

        await().atMost(Duration.ofSeconds(5)).until(() -> channel.reconnectedAt.size() == 1);
        long reconnectedAt = channel.reconnectedAt.get(0);
        Sent lost = channel.sent.get(0);
        // given up after GIVE_UP, then the second look CONFIRM_AFTER later
        assertThat(reconnectedAt - lost.atMillis())
                .isGreaterThanOrEqualTo(GIVE_UP + HeartbeatRetry.CONFIRM_AFTER_MILLIS);
        assertThat(channel.timedOutAtReconnect).as("heartbeats given up by the reconnect").containsExactly(1);

        // Not at the next tick, 30 s on: AFTER_RECONNECT after the reconnect.
        await().atMost(Duration.ofSeconds(3)).until(() -> channel.sent.size() == 2);
        Sent next = channel.sent.get(1);
        assertThat(next.atMillis() - reconnectedAt).isGreaterThanOrEqualTo(AFTER_RECONNECT);
        assertThat(next.to()).isEqualTo(LEADER.getId());
        assertThat(next.beat().sequence()).isEqualTo(lost.beat().sequence() + 1);
        System.out.printf("heartbeat sent %d ms after the reconnect (tick every %d ms)%n",
                next.atMillis() - reconnectedAt, INTERVAL);
    }

    @Test
    void aLeaderHeardOnceLate_butNotAgain_isNotReconnected() {
        // One late date, then nothing new (a pre-vote granted to the next leader dates "last heard" once).
        long[] first = {Long.MIN_VALUE};
        View view = new View(LEADER, false, now -> {
            if (first[0] == Long.MIN_VALUE) {
                first[0] = now;
            }
            return first[0];
        });
        Channel channel = start(view);

        await().atMost(Duration.ofSeconds(5)).until(() -> view.looks.get() == 2); // the first look and the second
        // A reconnect would follow the second look on the reconnect thread within milliseconds.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(channel.reconnectedAt::isEmpty);
        assertThat(timedOut).hasValue(1);
        assertThat(channel.sent).as("no heartbeat but the tick's").hasSize(1);
    }

    @Test
    void aLeaderLastHeardBeforeTheSend_isNotReconnected() {
        // A frozen leader: heard last before the heartbeat went out, and never since.
        long frozenAt = liveness.nowMillis() - 10_000;
        View view = new View(LEADER, false, now -> frozenAt);
        Channel channel = start(view);

        await().atMost(Duration.ofSeconds(3)).until(() -> view.looks.get() == 1);
        // A second look would come CONFIRM_AFTER (500 ms) after the first.
        await().during(Duration.ofMillis(HeartbeatRetry.CONFIRM_AFTER_MILLIS + 300)).atMost(Duration.ofSeconds(2))
                .until(() -> view.looks.get() == 1);
        assertThat(timedOut).hasValue(1);
        assertThat(channel.reconnectedAt).isEmpty();
    }

    @Test
    void theLeader_recordsItsOwnHeartbeat_withoutSendingIt() {
        Channel channel = start(new View(SELF, true, now -> Long.MIN_VALUE));

        await().atMost(Duration.ofSeconds(3)).until(() -> liveness.snapshot().containsKey("n2"));
        assertThat(liveness.snapshot().get("n2").incarnation()).isEqualTo(7);
        sender.reportNow();
        await().atMost(Duration.ofSeconds(3)).until(() -> liveness.snapshot().get("n2").sequence() == 2);
        assertThat(channel.sent).isEmpty();
    }

    @Test
    void reportNow_whileAHeartbeatIsInFlight_sendsAnotherWhenItIsAnswered() {
        // Never given up within the test: only the answers end a heartbeat here.
        View view = new View(LEADER, false, now -> now);
        Channel channel = start(view, INTERVAL);
        await().atMost(Duration.ofSeconds(3)).until(() -> channel.sent.size() == 1);

        sender.reportNow(); // the reports changed while the first heartbeat may already have read them
        sender.reportNow();
        // both ran, and sent nothing while one is in flight to the same leader
        await().atMost(Duration.ofSeconds(3)).until(() -> view.asked.get() == 3);
        assertThat(channel.sent).hasSize(1);
        channel.sent.get(0).reply().complete("answered");

        await().atMost(Duration.ofSeconds(3)).until(() -> channel.sent.size() == 2);
        assertThat(channel.sent.get(1).beat().sequence()).isEqualTo(2);
        channel.sent.get(1).reply().complete("answered");
        // one heartbeat owed, one sent: no third, however many reportNow calls asked while the first was out
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> channel.sent.size() == 2);
        assertThat(timedOut).hasValue(0);
    }

    @Test
    void timingOutOfRange_isRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HeartbeatSender.Timing(0, 1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range");
    }
}
