package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link OffThreadReconnectRpc} around a transport whose reconnects block until the test releases them, as Ratis'
 * does for up to 3 s while it closes the connection to a frozen peer. The real thing is exercised by the
 * real-process {@code DeposedLeaderCatchUpTest}; this shows the one rule on its own: a reconnect never holds up the
 * thread that asked for it while the pool has room, and none is ever dropped.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OffThreadReconnectRpcTest {

    private static final RaftPeerId FROZEN = RaftPeerId.valueOf("n1");

    private final BlockingTransport transport = new BlockingTransport();
    private final ReconnectCounts counts = new ReconnectCounts();
    private final OffThreadReconnectRpc rpc = new OffThreadReconnectRpc(transport, counts, ReconnectCounts.Client.HEARTBEATS);

    @AfterEach
    void release() throws IOException {
        transport.closing.countDown();
        rpc.close();
    }

    @Test
    void aReconnect_runsOnAnotherThread_andTheCallerGoesOnWhileItBlocks() throws Exception {
        IOException timeout = new IOException("request #7 timeout 1000ms");

        // Were it run here, this call would block until release(): the test's timeout would end it.
        assertThat(rpc.handleException(FROZEN, timeout, true)).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> transport.reconnects.size() == 1);
        Reconnect r = transport.reconnects.get(0);
        assertThat(r.peer()).isEqualTo(FROZEN);
        assertThat(r.cause()).isSameAs(timeout);
        assertThat(r.thread()).startsWith("felix-raft-reconnect-").isNotEqualTo(Thread.currentThread().getName());
        assertThat(counts.onPool()).isEqualTo(1);
        assertThat(counts.onCaller()).isZero();
        assertThat(counts.count(new ReconnectCounts.Key(FROZEN.toString(), ReconnectCounts.Client.HEARTBEATS,
                ReconnectCounts.RanOn.POOL))).as("counted for the client this transport serves").isEqualTo(1);
    }

    @Test
    void withoutReconnect_theTransportAnswersOnTheCallersThread() {
        transport.answer = false;
        assertThat(rpc.handleException(FROZEN, new IOException("not a reason to reconnect"), false)).isFalse();
        transport.answer = true;
        assertThat(rpc.handleException(FROZEN, new IllegalStateException("nor this"), false)).isTrue();

        assertThat(transport.reconnects).extracting(Reconnect::thread)
                .containsExactly(Thread.currentThread().getName(), Thread.currentThread().getName());
        assertThat(transport.reconnects).extracting(Reconnect::asked).containsExactly(false, false);
        assertThat(counts.onPool() + counts.onCaller()).as("no reconnect was made").isZero();
    }

    @Test
    void withoutReconnect_aFailureTheTransportReconnectsForAnyway_isReconnectedOnAnotherThread() {
        // Ratis' unordered client asks with reconnect unset; its PeerProxyMap reconnects for a timeout all the same.
        TimeoutIOException timeout = new TimeoutIOException("request #9 timeout 1000ms");

        assertThat(rpc.handleException(FROZEN, new IllegalStateException("wrapped", timeout), false)).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> transport.reconnects.size() == 1);
        Reconnect r = transport.reconnects.get(0);
        assertThat(r.asked()).as("asked to reconnect, as the transport would have").isTrue();
        assertThat(r.thread()).startsWith("felix-raft-reconnect-");
    }

    @Test
    void whenThePoolIsFull_aReconnectRunsOnTheCallersThread_insteadOfBeingDropped() throws Exception {
        for (int i = 0; i < OffThreadReconnectRpc.MAX_CLOSING; i++) {
            rpc.handleException(RaftPeerId.valueOf("n" + i), new IOException("timeout"), true);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> transport.reconnects.size() == OffThreadReconnectRpc.MAX_CLOSING);

        AtomicBoolean returned = new AtomicBoolean();
        Thread caller = new Thread(() -> {
            rpc.handleException(RaftPeerId.valueOf("n9"), new IOException("timeout"), true);
            returned.set(true);
        }, "the-fifth-caller");
        caller.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> transport.reconnects.size() == OffThreadReconnectRpc.MAX_CLOSING + 1);
        Reconnect fifth = transport.reconnects.get(OffThreadReconnectRpc.MAX_CLOSING);
        assertThat(fifth.peer()).isEqualTo(RaftPeerId.valueOf("n9"));
        assertThat(fifth.thread()).isEqualTo("the-fifth-caller");
        assertThat(returned).as("the fifth caller waits for its own close").isFalse();
        assertThat(counts.onPool()).isEqualTo(OffThreadReconnectRpc.MAX_CLOSING);
        assertThat(counts.onCaller()).isEqualTo(1);

        transport.closing.countDown();
        caller.join(10_000);
        assertThat(returned).isTrue();
    }

    @Test
    void close_closesTheTransport() throws IOException {
        rpc.close();
        assertThat(transport.closed).isTrue();
    }

    private record Reconnect(RaftPeerId peer, Throwable cause, boolean asked, String thread) {}

    /** Records each reconnect; one asked for blocks until {@link #closing} opens, like a close to a frozen peer. */
    private static final class BlockingTransport implements RaftClientRpc {
        final List<Reconnect> reconnects = new CopyOnWriteArrayList<>();
        final CountDownLatch closing = new CountDownLatch(1);
        volatile boolean answer;
        volatile boolean closed;

        @Override
        public boolean handleException(RaftPeerId serverId, Throwable t, boolean reconnect) {
            reconnects.add(new Reconnect(serverId, t, reconnect, Thread.currentThread().getName()));
            if (!reconnect) {
                return answer;
            }
            try {
                closing.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }

        @Override
        public CompletableFuture<RaftClientReply> sendRequestAsync(RaftClientRequest request) {
            throw new AssertionError("not sent in this test");
        }

        @Override
        public RaftClientReply sendRequest(RaftClientRequest request) {
            throw new AssertionError("not sent in this test");
        }

        @Override
        public void addRaftPeers(Collection<RaftPeer> peers) {}

        @Override
        public void close() {
            closed = true;
        }
    }
}
