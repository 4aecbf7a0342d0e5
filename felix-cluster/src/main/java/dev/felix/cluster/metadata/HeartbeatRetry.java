package dev.felix.cluster.metadata;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * When the Raft client sends a heartbeat again: until it has made {@value #ATTEMPTS} attempts in all, {@link #SLEEP}
 * apart, unless an attempt timed out.
 *
 * <p><b>Why not after a timeout.</b> A heartbeat goes to the Raft leader this node follows, and Ratis sends each retry
 * of an addressed request to that same server. When it is frozen, every retry waits out a whole attempt (1 s) and
 * first reconnects, and a reconnect to a frozen peer spends up to 5 s closing the old connection; meanwhile the node
 * gives the heartbeat up after one attempt and sends the next, so retries of several heartbeats piled up and could
 * hold more closes than {@link OffThreadReconnectRpc#MAX_CLOSING}. The next heartbeat is the better retry: it goes to
 * whichever leader this node follows by then. Without a retry Ratis makes no reconnect either, and none is needed: a
 * frozen peer's connection works again once it is thawed, and a dead peer's fails at once, not by timing out.
 *
 * <p><b>A broken connection.</b> Ratis also reconnected after each timeout, which recovered a connection that
 * stopped carrying answers without being reset. Without the retry, {@link RaftMetadata} reconnects itself, and only
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

    /** Attempts in all, the first included, while no attempt times out. */
    static final int ATTEMPTS = 3;

    /** The wait before each retry. */
    static final TimeDuration SLEEP = TimeDuration.valueOf(20, TimeUnit.MILLISECONDS);

    /**
     * How long after a heartbeat was sent its leader must still have been heard for a timeout to point at the
     * connection: half an attempt, twice the Raft leader's append interval, so a live leader's appends land inside it
     * and a leader that stopped just after the heartbeat was sent (a freeze) does not look alive.
     */
    static final long ALIVE_AFTER_SEND_MILLIS = 500;

    private final RetryPolicy others = RetryPolicies.retryUpToMaximumCountWithFixedSleep(ATTEMPTS, SLEEP);

    @Override
    public Action handleAttemptFailure(Event event) {
        return timedOut(event.getCause()) ? NO_RETRY_ACTION : others.handleAttemptFailure(event);
    }

    /** Whether {@code cause} (wrapped or not) is an attempt that got no answer in time. */
    static boolean timedOut(Throwable cause) {
        Throwable c = cause;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c instanceof TimeoutIOException;
    }

    /**
     * Whether a heartbeat sent at {@code sentAtMillis} that timed out points at a broken connection rather than a
     * stopped leader: the leader's Raft server was heard by this node's (its appends) at {@code leaderHeardAtMillis},
     * more than {@link #ALIVE_AFTER_SEND_MILLIS} after the heartbeat was sent. A frozen or dead leader sends nothing
     * after it stops, and one that stopped that late had time to answer.
     */
    static boolean connectionSuspect(long sentAtMillis, long leaderHeardAtMillis) {
        return leaderHeardAtMillis != Long.MIN_VALUE && leaderHeardAtMillis - sentAtMillis > ALIVE_AFTER_SEND_MILLIS;
    }

    @Override
    public String toString() {
        return "HeartbeatRetry(no retry after a timeout; otherwise " + others + ")";
    }
}
