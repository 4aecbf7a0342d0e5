package dev.felix.cluster.metadata;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * How many reconnects this node's Raft clients made, by peer, by client (the writes' client, or the heartbeats') and by
 * the thread that made them: one of {@link OffThreadReconnectRpc}'s pools (the caller went on at once), or the
 * caller's own thread because the pool was full (the caller waited for the close, as Ratis would have made it). Shared
 * by every client of one node and read by {@link RaftMetrics} as {@code
 * felix_raft_client_reconnects_total{client,peer,thread}}: the peer says which node the clients kept losing, a frozen
 * one included, and the client whether heartbeats were affected (a heartbeat connection that stopped answering is
 * reconnected by {@link HeartbeatSender}). The group's members are tracked from the start ({@link #track}), so their
 * series print at 0; a peer that joins later gets its series with its first reconnect. Thread-safe.
 */
final class ReconnectCounts {

    /** Which of a node's Raft clients reconnected. */
    enum Client {
        /** Metadata writes and reads, the failover decider's excepted (it submits to its own server). */
        WRITES("writes"),
        /** Heartbeats to the Raft leader. */
        HEARTBEATS("heartbeats");

        private final String label;

        Client(String label) {
            this.label = label;
        }

        /** The metric's {@code client} label. */
        String label() {
            return label;
        }
    }

    /** Where a reconnect ran. */
    enum RanOn {
        POOL("pool"), CALLER("caller");

        private final String label;

        RanOn(String label) {
            this.label = label;
        }

        /** The metric's {@code thread} label. */
        String label() {
            return label;
        }
    }

    /** One series: reconnects of {@code client} to {@code peer} made on {@code ranOn}. */
    record Key(String peer, Client client, RanOn ranOn) {
        Key {
            Objects.requireNonNull(peer, "peer");
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(ranOn, "ranOn");
        }
    }

    private final ConcurrentHashMap<Key, LongAdder> counts = new ConcurrentHashMap<>();
    private volatile Consumer<Key> onNewSeries = key -> { };

    void reconnected(String peer, Client client, boolean onAPoolThread) {
        counter(new Key(peer, client, onAPoolThread ? RanOn.POOL : RanOn.CALLER)).increment();
    }

    /** Starts each of {@code peer}'s series at 0 if it has not started, so that they print before any reconnect. */
    void track(String peer) {
        for (Client client : Client.values()) {
            for (RanOn ranOn : RanOn.values()) {
                counter(new Key(peer, client, ranOn));
            }
        }
    }

    private LongAdder counter(Key key) {
        LongAdder count = counts.get(key);
        if (count == null) {
            LongAdder fresh = new LongAdder();
            count = counts.putIfAbsent(key, fresh);
            if (count == null) {
                count = fresh;
                onNewSeries.accept(key);
            }
        }
        return count;
    }

    /**
     * Calls {@code listener} for every series counted so far, then for each new one as it appears (on the thread
     * of its first reconnect). Replaces any earlier listener. A series may be reported twice when it appears while
     * this runs; the listener must not mind.
     */
    void onNewSeries(Consumer<Key> listener) {
        onNewSeries = Objects.requireNonNull(listener, "listener");
        counts.keySet().forEach(listener);
    }

    long count(Key key) {
        LongAdder c = counts.get(key);
        return c == null ? 0 : c.sum();
    }

    /** Reconnects made on a pool's thread, to any peer. */
    long onPool() {
        return sum(RanOn.POOL);
    }

    /** Reconnects made on the caller's thread, to any peer. */
    long onCaller() {
        return sum(RanOn.CALLER);
    }

    private long sum(RanOn ranOn) {
        long total = 0;
        for (var e : counts.entrySet()) {
            if (e.getKey().ranOn() == ranOn) {
                total += e.getValue().sum();
            }
        }
        return total;
    }
}
