package dev.felix.cluster.metadata;

import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.util.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft client's transport ({@code GrpcClientRpc}), with one change: a reconnect to a peer runs on a thread of its
 * own instead of the caller's.
 *
 * <p>Why: when a request to a peer times out, Ratis' client moves to another peer and then reconnects to the old
 * one, which closes the old connection and waits up to 3 s for it to close gracefully (then 2 s more, forcefully).
 * A frozen peer never answers that close, so the wait runs its full length, and Ratis waits on the thread that
 * handles the failure: a timer thread shared by every Raft client in the JVM. The retry to the new leader is
 * scheduled only after the close, so a node's first metadata write after its Raft leader was frozen landed about 4 s
 * after the election instead of within the next attempt (docs/upstream-bugs.md, docs/cluster.md "A frozen Raft
 * leader and the first write").
 *
 * <p>Here the reconnect (which first replaces the peer's proxy, then closes the old one) is handed to a small pool
 * and the caller goes on to schedule its retry. The retry waits the client's retry sleep (100 ms) before it is sent,
 * so the proxy is replaced by then; if it were not, the retry would fail on the closing connection and be retried at
 * the same call id, which Raft's retry cache keeps from applying twice. The pool is bounded
 * ({@value #MAX_CLOSING} closes at a time); beyond that a reconnect runs on the caller's thread as before, so none is
 * ever dropped. Each reconnect is counted by where it ran ({@link ReconnectCounts}, the metric
 * {@code felix_raft_client_reconnects_total{client,peer,thread}}).
 *
 * <p>Everything else goes straight to the wrapped transport.
 */
final class OffThreadReconnectRpc implements RaftClientRpc {

    private static final Logger LOG = LoggerFactory.getLogger(OffThreadReconnectRpc.class);

    /** Closes at a time; each lasts at most Ratis' 3 s graceful plus 2 s forced wait. */
    static final int MAX_CLOSING = 4;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final RaftClientRpc delegate;
    private final ReconnectCounts counts;
    private final ReconnectCounts.Client client;
    private final ThreadPoolExecutor reconnects;

    /** @param client which of the node's clients this transport serves (counted with each reconnect) */
    OffThreadReconnectRpc(RaftClientRpc delegate, ReconnectCounts counts, ReconnectCounts.Client client) {
        this.delegate = delegate;
        this.counts = counts;
        this.client = client;
        this.reconnects = new ThreadPoolExecutor(0, MAX_CLOSING, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
                ReconnectThread::new, new ThreadPoolExecutor.CallerRunsPolicy());
    }

    /** A thread of a reconnect pool (told apart from a caller's thread when counting). */
    private static final class ReconnectThread extends Thread {
        ReconnectThread(Runnable r) {
            super(r, "felix-raft-reconnect-" + THREADS.incrementAndGet());
            setDaemon(true);
        }
    }

    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsync(RaftClientRequest request) {
        return delegate.sendRequestAsync(request);
    }

    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsyncUnordered(RaftClientRequest request) {
        return delegate.sendRequestAsyncUnordered(request);
    }

    @Override
    public RaftClientReply sendRequest(RaftClientRequest request) throws IOException {
        return delegate.sendRequest(request);
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> peers) {
        delegate.addRaftPeers(peers);
    }

    @Override
    public boolean shouldReconnect(Throwable t) {
        return delegate.shouldReconnect(t);
    }

    /**
     * Hands the reconnect to the pool and says it is handled when {@code reconnect} is set, or when the failure is
     * one the wrapped transport reconnects for anyway ({@link IOUtils#shouldReconnect}: a timeout, a closed or reset
     * connection; Ratis' {@code PeerProxyMap} decides so, and its unordered client asks with {@code reconnect}
     * unset). Otherwise the wrapped transport answers on this thread: it makes no reconnect then, only says it did
     * not handle the failure.
     */
    @Override
    public boolean handleException(RaftPeerId serverId, Throwable t, boolean reconnect) {
        if (!reconnect && !IOUtils.shouldReconnect(t)) {
            return delegate.handleException(serverId, t, false);
        }
        // After close() the pool drops it (CallerRunsPolicy runs nothing once shut down): the wrapped transport is
        // closed too, and nothing is left to reconnect.
        reconnects.execute(() -> reconnect(serverId, t));
        return true;
    }

    private void reconnect(RaftPeerId serverId, Throwable t) {
        long start = System.nanoTime();
        counts.reconnected(serverId.toString(), client, Thread.currentThread() instanceof ReconnectThread);
        delegate.handleException(serverId, t, true);
        LOG.debug("reconnected to {} after {} in {} ms", serverId, t.toString(),
                (System.nanoTime() - start) / 1_000_000);
    }

    @Override
    public void close() throws IOException {
        reconnects.shutdown();
        delegate.close();
    }
}
