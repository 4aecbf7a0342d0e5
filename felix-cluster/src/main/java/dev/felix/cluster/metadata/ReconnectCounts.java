package dev.felix.cluster.metadata;

import java.util.concurrent.atomic.LongAdder;

/**
 * How many reconnects this node's Raft clients made, by the thread that made them: one of {@link
 * OffThreadReconnectRpc}'s pools (the caller went on at once), or the caller's own thread because the pool was full
 * (the caller waited for the close, as Ratis would have made it). Shared by every client of one node and read by
 * {@link RaftMetrics} as {@code felix_raft_client_reconnects_total{thread}}. Thread-safe.
 */
final class ReconnectCounts {

    private final LongAdder onPool = new LongAdder();
    private final LongAdder onCaller = new LongAdder();

    void reconnected(boolean onAPoolThread) {
        (onAPoolThread ? onPool : onCaller).increment();
    }

    long onPool() {
        return onPool.sum();
    }

    long onCaller() {
        return onCaller.sum();
    }
}
