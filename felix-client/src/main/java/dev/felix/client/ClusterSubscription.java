package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.StartPosition;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A subscription to one shard of a stream of a cluster, served by the shard's leader, or by a chosen node that
 * relays the shard ({@code cluster_relay_subscribe}; see {@link FelixCluster#subscribe(StreamRef, int,
 * StartPosition, InetSocketAddress)}), which spreads the fanout of one shard over the cluster. When it ends because
 * its node was lost, shut down, or stopped leading the shard, it subscribes again on the current leader at
 * the last offset it delivered + 1 (full-jitter backoff between tries), so the application sees one
 * unbroken sequence of offsets: a reader only ever sees records a majority ({@code quorum}) or the leader
 * ({@code leader}) acknowledged, so no offset it saw is taken back. Gaps the broker reports are delivered as
 * {@link Gap} items as usual. Meant for one thread at a time.
 */
public final class ClusterSubscription implements AutoCloseable {

    private final FelixCluster cluster;
    private final StreamRef stream;
    private final int shard;
    private final StartPosition first;
    /** The node asked first (it relays the shard when it does not lead it); null: the leader. */
    private final InetSocketAddress via;
    private Subscription current;
    /** The offset to resume at: last delivered + 1, or -1 before anything was delivered. */
    private long resumeAt = -1;
    private int attempt;
    private volatile boolean closed;

    ClusterSubscription(FelixCluster cluster, StreamRef stream, int shard, StartPosition first, InetSocketAddress via) {
        this.via = via;
        this.cluster = cluster;
        this.stream = stream;
        this.shard = shard;
        this.first = first;
    }

    /** Subscribes for the first time, within the request timeout; throws what the last try met. */
    void start() {
        long deadline = System.nanoTime() + cluster.config().requestTimeout().toNanos();
        FelixClientException failure = subscribe(deadline);
        if (failure != null) {
            throw failure;
        }
    }

    public StreamRef stream() {
        return stream;
    }

    public int shard() {
        return shard;
    }

    /** The offset the next event will have, as far as this subscription knows; -1 before the first. */
    public long nextOffset() {
        return resumeAt;
    }

    /**
     * The next item, waiting up to {@code timeout} (resubscribing on the way if the leader changed); null if
     * none arrived in time or after {@link #close()}. Throws errors that a new leader cannot cure, and the
     * last failure if no leader could be reached within the timeout.
     */
    public Item next(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!closed) {
            if (current == null) {
                FelixClientException failure = subscribe(deadline);
                if (failure != null) {
                    if (System.nanoTime() - deadline >= 0) {
                        throw failure;
                    }
                    continue;
                }
            }
            try {
                Item item = current.next(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                if (item instanceof Event e) {
                    resumeAt = e.offset() + 1;
                    attempt = 0;
                } else if (item instanceof Gap g && g.to() != Long.MAX_VALUE && g.to() >= 0) {
                    resumeAt = Math.max(resumeAt, g.to() + 1);
                }
                return item;
            } catch (FelixClientException e) {
                if (!retriable(e)) {
                    throw e;
                }
                current.close();
                current = null;
                if (e.code() == ErrorCode.RESYNC && e.availableOffset() >= 0) {
                    resumeAt = e.availableOffset(); // a relay lost what it had not delivered: from exactly there
                }
                cluster.routes().forget(stream.toString(), shard);
                cluster.resubscribed();
                if (!Backoff.pause(attempt++, deadline)) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * One round of subscribing on the leader: following redirects, pacing retries, until {@code deadline}.
     * Null when subscribed, else the last failure (already thrown if it was not retriable).
     */
    private FelixClientException subscribe(long deadline) {
        FelixClientException failure = null;
        boolean tryVia = via != null;
        while (!closed) {
            if (tryVia) {
                try {
                    current = cluster.node(via).subscribe(options());
                    return null;
                } catch (FelixClientException e) {
                    failure = e;
                    if (!retriable(e)) {
                        throw e;
                    }
                    tryVia = e.code() != ErrorCode.NOT_LEADER; // it does not relay: the leader, this round
                }
                if (tryVia && !Backoff.pause(attempt++, deadline)) {
                    return failure;
                }
                if (tryVia) {
                    continue;
                }
            }
            InetSocketAddress leader = cluster.leaderOf(stream, shard);
            if (leader == null) {
                failure = new FelixClientException(ErrorCode.UNAVAILABLE, "no node leads shard " + shard + " of "
                        + stream + " at the moment");
            } else {
                try {
                    current = cluster.node(leader).subscribe(options());
                    return null;
                } catch (FelixClientException e) {
                    failure = e;
                    if (e.code() == ErrorCode.NOT_LEADER
                            && cluster.routes().learned(stream.toString(), shard, e.leader())) {
                        cluster.redirected();
                    } else if (!retriable(e)) {
                        throw e;
                    } else {
                        cluster.routes().forget(stream.toString(), shard);
                    }
                }
            }
            if (!Backoff.pause(attempt++, deadline)) {
                return failure;
            }
        }
        return new FelixClientException(ErrorCode.CONNECTION_LOST, "the subscription was closed");
    }

    private SubscribeOptions options() {
        return SubscribeOptions.of(stream).onShard(shard).from(resumeAt >= 0 ? StartPosition.offset(resumeAt) : first);
    }

    /**
     * Whether a new leader may cure {@code e}: the node went away or stopped leading, or (on a resume) a
     * freshly promoted leader does not yet serve the offset this subscription had reached.
     */
    private boolean retriable(FelixClientException e) {
        return switch (e.code()) {
            case NOT_LEADER, UNAVAILABLE, CONNECTION_LOST, BROKER_SHUTTING_DOWN, TIMEOUT, RESYNC -> true;
            case CURSOR_IN_FUTURE -> resumeAt >= 0;
            default -> false;
        };
    }

    @Override
    public void close() {
        closed = true;
        Subscription s = current;
        if (s != null) {
            s.close();
        }
    }
}
