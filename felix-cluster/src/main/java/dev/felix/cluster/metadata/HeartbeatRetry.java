package dev.felix.cluster.metadata;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * When the Raft client sends a heartbeat again: until it has made {@value #ATTEMPTS} attempts in all, {@link #SLEEP}
 * apart, except after an attempt that timed out.
 *
 * <p><b>Why not after such a timeout.</b> A heartbeat goes to the Raft leader this node's own Raft server follows,
 * when it knows one, and Ratis sends each retry of an addressed request to that same server. When it is frozen, every
 * retry waits out a whole attempt (1 s) and first reconnects, and a reconnect to a frozen peer spends up to 5 s closing
 * the old connection; meanwhile the node gives the heartbeat up after one attempt and sends the next, so retries of
 * several heartbeats piled up and could hold more closes than {@link OffThreadReconnectRpc#MAX_CLOSING}. The next
 * heartbeat is the better retry: it goes to whichever leader this node follows by then. Without a retry Ratis makes no
 * reconnect either, and none is needed for a frozen peer: its connection works again once it is thawed. A killed
 * process's connection fails at once rather than timing out, and that failure is retried.
 *
 * <p><b>A heartbeat not addressed</b> (this node's server knows no leader: it is joining, or an election is under way)
 * goes where the client last found the leader, and its timeout is not retried either. A retry would move the client
 * to another peer, but Ratis first reconnects, closing the connection to the peer that timed out: during an election
 * after a freeze that is the frozen leader, and a live node then spent 3 s closing it (1 of 2 runs of {@code
 * FrozenRaftLeaderLivenessTest} on 2026-12-06, when these timeouts were retried). Nothing is lost by waiting: once
 * this node's server follows a leader, the next heartbeat is addressed to it.
 *
 * <p><b>A broken connection.</b> Ratis also reconnected after each timeout, which recovered a connection that
 * stopped carrying answers without being reset. Without the retry, {@link HeartbeatSender} reconnects itself, and only
 * then: when the leader kept sending this node's Raft server appends well after the heartbeat went out
 * ({@link #connectionSuspect}), so the leader was alive and the heartbeat's connection is what failed.
 *
 * <p><b>Why retry the rest.</b> Other failures end an attempt early and are often over in a moment: a leader elected a
 * moment ago refuses queries until it has committed its first entry ({@code LeaderNotReadyException}), and a
 * connection closed by a peer's restart is reconnected before the retry. Trying every heartbeat only once (on
 * 2026-12-06) made live nodes be declared down after a pause of the whole cluster in 4 of 5 runs of
 * {@code FrozenRaftLeaderLivenessTest}.
 *
 * <p>Stateless and thread-safe.
 */
final class HeartbeatRetry implements RetryPolicy {

    /** Attempts in all, the first included, unless one times out. */
    static final int ATTEMPTS = 3;

    /** The wait before each retry. */
    static final TimeDuration SLEEP = TimeDuration.valueOf(20, TimeUnit.MILLISECONDS);

    /**
     * How long after a heartbeat was sent its leader must still have been heard for a timeout to point at the
     * connection, at most: twice the Raft leader's append interval (250 ms), so a live leader's appends land inside
     * it, and a leader that stopped just after the heartbeat was sent (a freeze) does not look alive. Shorter when an
     * attempt is ({@link #aliveAfterSendMillis}).
     */
    static final long ALIVE_AFTER_SEND_MILLIS = 500;

    private final RetryPolicy others = RetryPolicies.retryUpToMaximumCountWithFixedSleep(ATTEMPTS, SLEEP);

    @Override
    public Action handleAttemptFailure(Event event) {
        return timedOut(event.getCause()) ? NO_RETRY_ACTION : others.handleAttemptFailure(event);
    }

    /**
     * Whether {@code cause}, or anything in its chain of causes, is an attempt that got no answer in time: Ratis'
     * client timeout ({@code TimeoutIOException}, also inside the {@code RaftRetryFailureException} of a retried
     * heartbeat whose last attempt timed out), or a future's ({@link TimeoutException}).
     */
    static boolean timedOut(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof TimeoutIOException || c instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long after a heartbeat was sent its leader must still have been heard for a timeout to point at the
     * connection, for an attempt of {@code attemptMillis}: {@link #ALIVE_AFTER_SEND_MILLIS}, or half the attempt when
     * that is less (a heartbeat given up sooner than 500 ms after it was sent must be judged sooner).
     */
    static long aliveAfterSendMillis(long attemptMillis) {
        return Math.min(ALIVE_AFTER_SEND_MILLIS, attemptMillis / 2);
    }

    /**
     * Whether a heartbeat sent at {@code sentAtMillis} that timed out points at a broken connection rather than a
     * stopped leader: the leader's Raft server was heard by this node's (its appends) at {@code leaderHeardAtMillis},
     * more than {@code aliveAfterSendMillis} after the heartbeat was sent. A frozen or dead leader sends nothing
     * after it stops, and one that stopped that late had time to answer.
     *
     * @param leaderHeardAtMillis {@link Long#MIN_VALUE} when this node's server does not follow that leader
     */
    static boolean connectionSuspect(long sentAtMillis, long leaderHeardAtMillis, long aliveAfterSendMillis) {
        return leaderHeardAtMillis != Long.MIN_VALUE && leaderHeardAtMillis - sentAtMillis > aliveAfterSendMillis;
    }

    /**
     * How long after a connection looked suspect this node looks again ({@link #heardAgain}): two of the Raft
     * leader's idle append intervals (Ratis sends one every half minimum election timeout, 250 ms).
     */
    static final long CONFIRM_AFTER_MILLIS = 500;
    /** How much later the second look must find the leader heard: more than clock rounding, less than an interval. */
    static final long HEARD_AGAIN_MARGIN_MILLIS = 100;

    /**
     * Whether a second look at when this node's Raft server last heard the leader ({@code secondHeardAtMillis},
     * {@link #CONFIRM_AFTER_MILLIS} after the first) finds it heard again since {@code firstHeardAtMillis}. Ratis
     * dates a follower's "last heard" also when it grants a vote or pre-vote, or completes an append it received
     * earlier, so one late date does not show a live leader: a node of {@code FrozenRaftLeaderLivenessTest}
     * reconnected to the frozen leader it had "heard" 974 ms after its heartbeat was sent (1 of 3 runs), which was
     * the pre-vote it granted the next leader. A live leader sends appends every interval, and a stopped one nothing.
     */
    static boolean heardAgain(long firstHeardAtMillis, long secondHeardAtMillis) {
        return firstHeardAtMillis != Long.MIN_VALUE && secondHeardAtMillis != Long.MIN_VALUE
                && secondHeardAtMillis - firstHeardAtMillis >= HEARD_AGAIN_MARGIN_MILLIS;
    }

    @Override
    public String toString() {
        return "HeartbeatRetry(no retry after a timeout; otherwise " + others + ")";
    }
}
