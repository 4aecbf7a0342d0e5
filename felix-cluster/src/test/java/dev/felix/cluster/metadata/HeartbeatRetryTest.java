package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

/**
 * {@link HeartbeatRetry}: a heartbeat that timed out is not sent again to the same server, any other failure is, a
 * bounded number of times.
 */
class HeartbeatRetryTest {

    private final HeartbeatRetry policy = new HeartbeatRetry();

    @Test
    void anAttemptThatTimedOut_isNotRetried() {
        RetryPolicy.Action action = policy.handleAttemptFailure(failure(1, new TimeoutIOException("request #7 timeout 1s")));

        assertThat(action.shouldRetry()).isFalse();
    }

    @Test
    void aTimeoutWrappedByAFuture_isRecognised() {
        Throwable wrapped = new CompletionException(new TimeoutIOException("request #7 timeout 1s"));

        assertThat(policy.handleAttemptFailure(failure(1, wrapped)).shouldRetry()).isFalse();
    }

    @Test
    void aLeaderNotReadyYet_isRetriedAfterTheShortSleep() {
        LeaderNotReadyException notReady = new LeaderNotReadyException(
                RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n2"), RaftGroupId.randomId()));

        RetryPolicy.Action action = policy.handleAttemptFailure(failure(1, notReady));

        assertThat(action.shouldRetry()).isTrue();
        assertThat(action.getSleepTime()).isEqualTo(HeartbeatRetry.SLEEP);
    }

    @Test
    void aClosedOrResetConnection_isRetried_upToTheLimit() {
        IOException closed = new AlreadyClosedException("the stream is closed");

        for (int attempt = 1; attempt < HeartbeatRetry.ATTEMPTS; attempt++) {
            assertThat(policy.handleAttemptFailure(failure(attempt, closed)).shouldRetry()).as("attempt %d", attempt)
                    .isTrue();
        }
        assertThat(policy.handleAttemptFailure(failure(HeartbeatRetry.ATTEMPTS, closed)).shouldRetry()).isFalse();
    }

    @Test
    void aFailureWithoutACause_isRetried() {
        assertThat(policy.handleAttemptFailure(failure(1, null)).shouldRetry()).isTrue();
    }

    @Test
    void aTimeoutWhileTheLeaderKeptAppending_pointsAtTheConnection() {
        long sent = 10_000;

        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + 750)).as("heard 750 ms after the send").isTrue();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + HeartbeatRetry.ALIVE_AFTER_SEND_MILLIS + 1)).isTrue();
    }

    @Test
    void aTimeoutOfALeaderThatStopped_doesNot() {
        long sent = 10_000;

        assertThat(HeartbeatRetry.connectionSuspect(sent, sent - 200)).as("frozen before the send").isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + 40)).as("frozen just after it").isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + HeartbeatRetry.ALIVE_AFTER_SEND_MILLIS)).isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, Long.MIN_VALUE)).as("not following it").isFalse();
    }

    private static RetryPolicy.Event failure(int attempt, Throwable cause) {
        return new RetryPolicy.Event() {
            @Override
            public int getAttemptCount() {
                return attempt;
            }

            @Override
            public Throwable getCause() {
                return cause;
            }
        };
    }
}
