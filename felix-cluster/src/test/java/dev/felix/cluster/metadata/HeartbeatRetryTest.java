package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * {@link HeartbeatRetry}: a heartbeat that timed out is not sent again; any other failure is, a bounded number of
 * times. And when a timeout points at the connection rather than the leader.
 */
class HeartbeatRetryTest {

    private static final RaftPeerId LEADER = RaftPeerId.valueOf("n1");

    private final HeartbeatRetry policy = new HeartbeatRetry();

    @Test
    void anAddressedAttemptThatTimedOut_isNotRetried() {
        RetryPolicy.Action action = policy.handleAttemptFailure(
                addressed(1, new TimeoutIOException("request #7 timeout 1s")));

        assertThat(action.shouldRetry()).isFalse();
    }

    @Test
    void aRoutedAttemptThatTimedOut_isNotRetriedEither() {
        // sent while this node knew no leader: a retry would reconnect to, and so close, the peer that timed out
        RetryPolicy.Action action = policy.handleAttemptFailure(
                routed(1, new TimeoutIOException("request #7 timeout 1s")));

        assertThat(action.shouldRetry()).isFalse();
    }

    @Test
    void aLeaderNotReadyYet_isRetriedAfterTheShortSleep() {
        LeaderNotReadyException notReady = new LeaderNotReadyException(
                RaftGroupMemberId.valueOf(LEADER, RaftGroupId.randomId()));

        RetryPolicy.Action action = policy.handleAttemptFailure(addressed(1, notReady));

        assertThat(action.shouldRetry()).isTrue();
        assertThat(action.getSleepTime()).isEqualTo(HeartbeatRetry.SLEEP);
    }

    @Test
    void aClosedOrResetConnection_isRetried_upToTheLimit() {
        IOException closed = new AlreadyClosedException("the stream is closed");

        for (int attempt = 1; attempt < HeartbeatRetry.ATTEMPTS; attempt++) {
            assertThat(policy.handleAttemptFailure(addressed(attempt, closed)).shouldRetry()).as("attempt %d", attempt)
                    .isTrue();
        }
        assertThat(policy.handleAttemptFailure(addressed(HeartbeatRetry.ATTEMPTS, closed)).shouldRetry()).isFalse();
    }

    @Test
    void aFailureWithoutACause_isRetried() {
        assertThat(policy.handleAttemptFailure(addressed(1, null)).shouldRetry()).isTrue();
    }

    @Test
    void aTimeoutIsRecognised_whereverItSitsInTheChainOfCauses() {
        TimeoutIOException ratis = new TimeoutIOException("request #7 timeout 1s");

        assertThat(HeartbeatRetry.timedOut(ratis)).isTrue();
        assertThat(HeartbeatRetry.timedOut(new CompletionException(ratis))).as("as a future passes it on").isTrue();
        assertThat(HeartbeatRetry.timedOut(new CompletionException(new RaftRetryFailureException(
                request(false), 2, policy, ratis)))).as("the last of two attempts timed out").isTrue();
        assertThat(HeartbeatRetry.timedOut(new TimeoutException())).as("the heartbeat's own give-up").isTrue();
        assertThat(HeartbeatRetry.timedOut(new CompletionException(new AlreadyClosedException("closed")))).isFalse();
        assertThat(HeartbeatRetry.timedOut(null)).isFalse();
    }

    @Test
    void aTimeoutWhileTheLeaderKeptAppending_pointsAtTheConnection() {
        long sent = 10_000;
        long margin = HeartbeatRetry.aliveAfterSendMillis(1_000);

        assertThat(margin).isEqualTo(HeartbeatRetry.ALIVE_AFTER_SEND_MILLIS);
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + 750, margin)).as("heard 750 ms after the send")
                .isTrue();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + margin + 1, margin)).isTrue();
    }

    @Test
    void aSuspectConnection_isReconnectedOnlyIfTheSecondLookFindsTheLeaderHeardAgain() {
        long firstLook = 11_000;
        assertThat(HeartbeatRetry.heardAgain(firstLook, firstLook + 250)).as("an append an interval later").isTrue();
        assertThat(HeartbeatRetry.heardAgain(firstLook, firstLook + HeartbeatRetry.HEARD_AGAIN_MARGIN_MILLIS))
                .isTrue();
        // The first date was a pre-vote granted to the next leader while this one was frozen: nothing since
        assertThat(HeartbeatRetry.heardAgain(firstLook, firstLook)).as("the same date").isFalse();
        assertThat(HeartbeatRetry.heardAgain(firstLook, firstLook + 1)).as("the same date, rounded").isFalse();
        assertThat(HeartbeatRetry.heardAgain(firstLook, Long.MIN_VALUE)).as("following no one any more").isFalse();
        assertThat(HeartbeatRetry.CONFIRM_AFTER_MILLIS).as("two of the leader's idle append intervals")
                .isEqualTo(2 * RaftMetadata.ELECTION_TIMEOUT_MIN.toMillis() / 2);
    }

    @Test
    void aTimeoutOfALeaderThatStopped_doesNot() {
        long sent = 10_000;
        long margin = HeartbeatRetry.aliveAfterSendMillis(1_000);

        assertThat(HeartbeatRetry.connectionSuspect(sent, sent - 200, margin)).as("frozen before the send").isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + 40, margin)).as("frozen just after it").isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, sent + margin, margin)).isFalse();
        assertThat(HeartbeatRetry.connectionSuspect(sent, Long.MIN_VALUE, margin)).as("not following it").isFalse();
    }

    @Test
    void aShortAttempt_isJudgedOnHalfOfIt() {
        // cluster_request_timeout_ms of 300: a heartbeat is given up 300 ms after it was sent
        long margin = HeartbeatRetry.aliveAfterSendMillis(300);

        assertThat(margin).isEqualTo(150);
        assertThat(HeartbeatRetry.connectionSuspect(10_000, 10_200, margin)).isTrue();
    }

    private static RetryPolicy.Event addressed(int attempt, Throwable cause) {
        return new ClientRetryEvent(attempt, request(false), attempt, cause, Timestamp.currentTime());
    }

    private static RetryPolicy.Event routed(int attempt, Throwable cause) {
        return new ClientRetryEvent(attempt, request(true), attempt, cause, Timestamp.currentTime());
    }

    /** A heartbeat-like read-only request, to the leader the client found ({@code routed}) or to one server. */
    private static RaftClientRequest request(boolean routed) {
        RaftClientRequest.Builder b = RaftClientRequest.newBuilder()
                .setClientId(ClientId.randomId())
                .setGroupId(RaftGroupId.randomId())
                .setCallId(7)
                .setMessage(Message.EMPTY)
                .setType(RaftClientRequest.readRequestType());
        return (routed ? b.setLeaderId(LEADER) : b.setServerId(LEADER)).build();
    }
}
