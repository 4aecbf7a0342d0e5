package dev.felix.cluster.metadata;

import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ReplicaReporter;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's heartbeats to the Raft leader of the metadata group: one every heartbeat interval, and one at once when
 * {@link #reportNow} says the replica reports changed. A heartbeat carries the node's incarnation, a sequence number
 * and its replica reports; it never enters the Raft log ({@link Heartbeat}).
 *
 * <p><b>Where a heartbeat goes.</b> To the leader this node's own Raft server follows, when it knows one (it learns of a
 * new leader from the leader's first append, while the client's own guess may still be the node that stopped leading,
 * and a frozen one costs a whole attempt). A heartbeat in flight to another node is then no longer waited for. When
 * this node is the ready leader, it records its own heartbeat in {@link Liveness}, as its Raft server would on
 * receiving it: sent over a connection to itself, it would depend on that connection, and one that stopped answering
 * (through a forwarded {@code raft_advertise} port) had the leader declare itself down.
 *
 * <p><b>A heartbeat that gets no answer</b> is given up after {@link Timing#giveUpMillis}, not retried after a
 * timeout ({@link HeartbeatRetry}). When the leader went on sending this node appends well after it was sent, and is
 * heard again at a second look, the connection is what failed: the sender reconnects it ({@link
 * Channel#reconnect}) on a thread of its own and sends the next heartbeat {@link Timing#afterReconnectMillis} later
 * over the new connection, not at the next tick (the leader has not heard this node since before the lost one was
 * sent).
 *
 * <p><b>Threads.</b> Heartbeats, second looks and the heartbeat after a reconnect run on one scheduler thread ({@code
 * felix-cluster-heartbeat}); the sequence number is that thread's alone. Reconnects run on {@code
 * felix-cluster-heartbeat-reconnect}: one at a time, at most one waiting, any further one dropped (the next
 * timed-out heartbeat asks again). Its own thread, because a Raft client's reconnect runs on its caller's thread when
 * the reconnect pool is full (up to 5 s closing the old connection). {@link #reportNow} and {@link #close} may be
 * called from any thread.
 */
final class HeartbeatSender implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatSender.class);

    /** What the sender needs to know of this node's Raft server. */
    interface RaftView {
        /** The leader this node's Raft server knows of (itself included), or null when it knows none. */
        RaftPeer leaderKnownHere();

        /** Whether this node's Raft server is the metadata group's leader, ready to serve. */
        boolean leadsReady();

        /**
         * When this node's Raft server last heard from {@code leader} while following it ({@link Liveness#nowMillis}
         * clock), or {@link Long#MIN_VALUE} when it does not follow that leader.
         */
        long leaderHeardAt(RaftPeerId leader);
    }

    /** How a heartbeat travels: the node's heartbeat Raft client. */
    interface Channel {
        /**
         * Sends {@code beat} to {@code leader}, or wherever the client finds the leader when it is null. Completes when
         * answered; exceptionally when refused or not delivered.
         */
        CompletableFuture<?> send(Heartbeat beat, RaftPeer leader);

        /** Drops the connection to {@code target} that {@code cause} failed on; the next send opens a new one. */
        void reconnect(RaftPeerId target, Throwable cause);
    }

    /**
     * The sender's timing.
     *
     * @param intervalMillis       between heartbeats
     * @param giveUpMillis         how long a heartbeat may go unanswered before it is given up
     * @param attemptMillis        one Raft client attempt: how long the leader must have been heard after a send for
     *                             a timeout to point at the connection is judged from it ({@link
     *                             HeartbeatRetry#aliveAfterSendMillis})
     * @param afterReconnectMillis from a reconnect to the next heartbeat
     */
    record Timing(long intervalMillis, long giveUpMillis, long attemptMillis, long afterReconnectMillis) {
        Timing {
            if (intervalMillis <= 0 || giveUpMillis <= 0 || attemptMillis <= 0 || afterReconnectMillis < 0) {
                throw new IllegalArgumentException("heartbeat timing out of range: " + intervalMillis + "ms, "
                        + giveUpMillis + "ms, " + attemptMillis + "ms, " + afterReconnectMillis + "ms");
            }
        }
    }

    /** A heartbeat on its way: one object per send, so that only the latest clears the slot. */
    private record InFlight(RaftPeerId target) {
    }

    private final String nodeId;
    private final long incarnation;
    private final ReplicaReporter reporter;
    private final Liveness liveness;
    private final RaftView raft;
    private final Channel channel;
    private final Timing timing;
    private final Runnable onTimedOut;
    private final ScheduledExecutorService thread =
            Executors.newSingleThreadScheduledExecutor(RaftMetadata.daemon("felix-cluster-heartbeat"));
    private final ThreadPoolExecutor reconnects = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1), RaftMetadata.daemon("felix-cluster-heartbeat-reconnect"),
            (task, pool) -> {
                if (!pool.isShutdown()) {
                    LOG.debug("a reconnect of the heartbeat connection is already running and another waiting: this"
                            + " one dropped (the next unanswered heartbeat asks again)");
                }
            });
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set by {@link #reportNow}: a heartbeat with the latest reports is owed. */
    private final AtomicBoolean reportAgain = new AtomicBoolean();
    /** Set by {@link #stop()} (tests only). */
    private volatile boolean stopped;
    /** The heartbeat in flight, if any, and where it went (null target: wherever the client routed it). */
    private final AtomicReference<InFlight> inFlight = new AtomicReference<>();
    private volatile CompletableFuture<?> lastSent = CompletableFuture.completedFuture(null);
    /** The last heartbeat's number ({@link Heartbeat#sequence}); the heartbeat thread's alone. */
    private long sequence;

    /**
     * @param reporter   this node's replica reports, sent with every heartbeat (called on the heartbeat thread)
     * @param liveness   where this node, leading, records its own heartbeat; and the clock
     * @param onTimedOut called for every heartbeat given up unanswered ({@code felix_raft_heartbeats_timed_out_total})
     */
    HeartbeatSender(String nodeId, long incarnation, ReplicaReporter reporter, Liveness liveness, RaftView raft,
                    Channel channel, Timing timing, Runnable onTimedOut) {
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
        this.incarnation = incarnation;
        this.reporter = Objects.requireNonNull(reporter, "reporter");
        this.liveness = Objects.requireNonNull(liveness, "liveness");
        this.raft = Objects.requireNonNull(raft, "raft");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.onTimedOut = Objects.requireNonNull(onTimedOut, "onTimedOut");
    }

    /** Heartbeats from now on: the first at once, then every interval. */
    void start() {
        thread.scheduleWithFixedDelay(this::heartbeat, 0, timing.intervalMillis(), TimeUnit.MILLISECONDS);
    }

    /** A heartbeat at once, with the latest reports; another when the one in flight ends, if it may predate them. */
    void reportNow() {
        if (closed.get()) {
            return;
        }
        reportAgain.set(true);
        onThread(this::heartbeat, 0);
    }

    /**
     * For tests: no more heartbeats, while the node's Raft server runs on, as a node stuck but for Raft would (the Raft
     * leader then declares it down after twice the failure timeout, {@link FailoverDecider}).
     */
    void stop() {
        stopped = true;
    }

    private void heartbeat() {
        if (closed.get() || stopped) {
            return;
        }
        RaftPeer leader = raft.leaderKnownHere();
        RaftPeerId target = leader == null ? null : leader.getId();
        InFlight current = inFlight.get();
        if (current != null && (target == null || target.equals(current.target()))) {
            return;
        }
        InFlight mine = new InFlight(target);
        if (!inFlight.compareAndSet(current, mine)) {
            return;
        }
        reportAgain.set(false);
        Heartbeat beat = new Heartbeat(nodeId, incarnation, ++sequence, reports());
        if (target != null && target.toString().equals(nodeId) && raft.leadsReady()) {
            liveness.record(beat);
            inFlight.compareAndSet(mine, null);
            return;
        }
        try {
            long sentAt = liveness.nowMillis();
            lastSent = channel.send(beat, leader)
                    .orTimeout(timing.giveUpMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((reply, e) -> ended(mine, sentAt, RaftMetadata.unwrap(e)));
        } catch (RuntimeException e) {
            inFlight.compareAndSet(mine, null);
            LOG.debug("heartbeat not sent: {}", e.toString());
        }
    }

    private List<ReplicaReport> reports() {
        try {
            return reporter.reports();
        } catch (RuntimeException e) {
            LOG.warn("the replica reporter failed; heartbeating without reports", e);
            return List.of();
        }
    }

    /** A heartbeat sent at {@code sentAt} was answered ({@code e} null), or failed with {@code e}. */
    private void ended(InFlight mine, long sentAt, Throwable e) {
        if (e != null && HeartbeatRetry.timedOut(e)) {
            onTimedOut.run(); // counted also when a later heartbeat has superseded it
            reconnectIfBroken(mine.target(), sentAt, e);
        }
        if (!inFlight.compareAndSet(mine, null)) {
            return; // a later heartbeat went to the leader this node follows now
        }
        if (reportAgain.get() && !closed.get()) {
            reportNow();
        }
        if (e != null && !closed.get()) {
            LOG.debug("heartbeat to {} not delivered: {}", mine.target(), String.valueOf(e));
        }
    }

    /**
     * After a heartbeat to {@code target} timed out: reconnects to it when its Raft server kept sending this node
     * appends well after the heartbeat was sent ({@link HeartbeatRetry#connectionSuspect}), and is heard again at a
     * second look half a second later ({@link HeartbeatRetry#heardAgain}). Ratis makes no reconnect after a timeout
     * that is not retried, and a heartbeat connection that silently stopped carrying answers (no reset ever comes)
     * would otherwise stay in use while the leader declares this node down.
     */
    private void reconnectIfBroken(RaftPeerId target, long sentAt, Throwable cause) {
        if (target == null || closed.get()) {
            return;
        }
        long heardAt = raft.leaderHeardAt(target);
        long judgedAfter = HeartbeatRetry.aliveAfterSendMillis(Math.min(timing.giveUpMillis(), timing.attemptMillis()));
        if (!HeartbeatRetry.connectionSuspect(sentAt, heardAt, judgedAfter)) {
            return;
        }
        onThread(() -> reconnectIfHeardAgain(target, sentAt, heardAt, cause), HeartbeatRetry.CONFIRM_AFTER_MILLIS);
    }

    /** The second look of {@link #reconnectIfBroken}, {@link HeartbeatRetry#CONFIRM_AFTER_MILLIS} after the first. */
    private void reconnectIfHeardAgain(RaftPeerId target, long sentAt, long heardAt, Throwable cause) {
        long heardAgainAt = raft.leaderHeardAt(target);
        if (closed.get() || !HeartbeatRetry.heardAgain(heardAt, heardAgainAt)) {
            LOG.debug("a heartbeat to {} went unanswered; its Raft server was heard {}ms after it was sent, and not"
                    + " again since: no reconnect", target, heardAt - sentAt);
            return;
        }
        LOG.info("a heartbeat to {} went unanswered although its Raft server was heard {}ms and again {}ms after it"
                + " was sent: reconnecting", target, heardAt - sentAt, heardAgainAt - sentAt);
        reconnects.execute(() -> {
            channel.reconnect(target, cause);
            onThread(this::heartbeat, timing.afterReconnectMillis());
        });
    }

    /** Runs {@code task} on the heartbeat thread after {@code delayMillis}, unless this sender is closing. */
    private void onThread(Runnable task, long delayMillis) {
        try {
            thread.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /**
     * Stops heartbeating, and lets a heartbeat on its way finish (up to two intervals) rather than fail it by closing
     * its channel under it. Idempotent; the channel is the caller's to close afterwards.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.shutdownNow();
        reconnects.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
            lastSent.handle((r, e) -> null).get(timing.intervalMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("a heartbeat was still on its way at close");
        }
    }
}
