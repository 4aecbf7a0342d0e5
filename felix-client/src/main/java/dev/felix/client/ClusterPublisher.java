package dev.felix.client;

import dev.felix.wire.ErrorCode;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publishes to a stream of a cluster: each event goes to the leader of its shard (chosen by key with the
 * broker's hash, round-robin without one), following redirects and failovers as {@link FelixCluster}
 * describes. One {@link Publisher} per node it needs. Meant for one thread at a time.
 */
public final class ClusterPublisher implements AutoCloseable {

    private final FelixCluster cluster;
    private final StreamRef stream;
    private final int shards;
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final Map<InetSocketAddress, Publisher> publishers = new ConcurrentHashMap<>();
    private volatile boolean mayBeDuplicate;

    /** How long one attempt waits for its acknowledgement: the 5 s quorum window plus a margin. */
    static final long ATTEMPT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(8);

    ClusterPublisher(FelixCluster cluster, StreamRef stream, int shards) {
        this.cluster = cluster;
        this.stream = stream;
        this.shards = shards;
    }

    public StreamRef stream() {
        return stream;
    }

    /** Publishes one event (round-robin over shards) and waits for its acknowledgement. */
    public PublishAck publish(byte[] payload) {
        return publish(null, payload);
    }

    /**
     * Publishes one event to the shard {@code key} maps to (null: round-robin) and waits for its
     * acknowledgement, retrying on the shard's current leader until the request timeout.
     *
     * @throws FelixClientException {@code quorum_timeout} as the broker worded it (not retried: the batch may
     *                              still commit); the last refusal once the request timeout has passed; any
     *                              other error at once
     */
    public PublishAck publish(String key, byte[] payload) {
        mayBeDuplicate = false;
        int shard = shardFor(key);
        ClientConfig config = cluster.config();
        long deadline = System.nanoTime() + config.requestTimeout().toNanos();
        int attempt = 0;
        while (true) {
            FelixClientException failure;
            try {
                return once(shard, payload, deadline);
            } catch (FelixClientException e) {
                failure = e;
            }
            if (failure.code() == ErrorCode.NOT_LEADER
                    && cluster.routes().learned(stream.toString(), shard, failure.leader())) {
                cluster.redirected();
                if (attempt++ < 3) {
                    continue; // a fresh hint: follow it at once, a few times before pacing
                }
            } else if (!retriable(failure.code())) {
                throw failure;
            } else {
                cluster.routes().forget(stream.toString(), shard);
            }
            cluster.retried();
            if (!Backoff.pause(attempt++, deadline)) {
                throw failure;
            }
        }
    }

    /** One attempt on the leader the routes name; notes an attempt whose outcome is unknown. */
    private PublishAck once(int shard, byte[] payload, long deadline) {
        InetSocketAddress leader = cluster.leaderOf(stream, shard);
        if (leader == null) {
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "no node leads shard " + shard + " of " + stream
                    + " at the moment");
        }
        Publisher p = publisherAt(leader); // a failure here sent nothing: the node is unreachable
        try {
            return attempt(p, leader, shard, payload, deadline);
        } catch (FelixClientException e) {
            if (unknownOutcome(e.code())) {
                mayBeDuplicate = true;
            }
            dropIfDead(leader);
            throw e;
        }
    }

    /**
     * Whether the last {@link #publish} was sent again after an attempt whose outcome is unknown (no answer in
     * time, the connection lost, the shard closed while the batch waited for its commit): the event may then
     * be stored twice. False when every earlier attempt was refused before anything was written.
     */
    public boolean lastPublishMayBeDuplicate() {
        return mayBeDuplicate;
    }

    /** Failures after which the event may have been stored although no acknowledgement came. */
    private static boolean unknownOutcome(ErrorCode code) {
        return code == ErrorCode.TIMEOUT || code == ErrorCode.CONNECTION_LOST || code == ErrorCode.UNAVAILABLE;
    }

    /** Whether a publish that failed with {@code code} may be sent again (see {@link FelixCluster}). */
    static boolean retriable(ErrorCode code) {
        return switch (code) {
            case NOT_LEADER, UNAVAILABLE, CONNECTION_LOST, BROKER_SHUTTING_DOWN, TIMEOUT -> true;
            default -> false;
        };
    }

    private PublishAck attempt(Publisher p, InetSocketAddress leader, int shard, byte[] payload, long deadline) {
        // One attempt waits longer than the quorum window (so quorum_timeout arrives as itself), but not the
        // whole request timeout: a frozen leader must not hold the publish while a replica takes over.
        long wait = Math.max(1, Math.min(deadline - System.nanoTime(), ATTEMPT_TIMEOUT_NANOS));
        try {
            return p.publishToShardAsync(shard, payload).get(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted while publishing to " + stream);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, "could not publish: " + e.getCause(), -1,
                            e.getCause());
        } catch (TimeoutException e) {
            throw new FelixClientException(ErrorCode.TIMEOUT, "no acknowledgement from "
                    + FelixCluster.hostPort(leader) + " within " + TimeUnit.NANOSECONDS.toMillis(wait) + " ms");
        }
    }

    private Publisher publisherAt(InetSocketAddress node) {
        Publisher p = publishers.get(node);
        if (p != null && !p.closed()) {
            return p;
        }
        Publisher fresh = cluster.node(node).publisher(stream);
        publishers.put(node, fresh);
        return fresh;
    }

    /** Forgets the publisher on a node whose connection is gone, so the next use reconnects. */
    private void dropIfDead(InetSocketAddress node) {
        Publisher p = publishers.get(node);
        if (p != null && p.closed()) {
            publishers.remove(node, p);
        }
    }

    private int shardFor(String key) {
        if (shards <= 1) {
            return 0;
        }
        if (key == null) {
            return Math.floorMod(roundRobin.getAndIncrement(), shards);
        }
        return ShardHash.of(key, shards);
    }

    @Override
    public void close() {
        for (Publisher p : List.copyOf(publishers.values())) {
            p.close();
        }
        publishers.clear();
    }
}
