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
        int shard = shardFor(key);
        ClientConfig config = cluster.config();
        long deadline = System.nanoTime() + config.requestTimeout().toNanos();
        int attempt = 0;
        while (true) {
            InetSocketAddress leader = cluster.leaderOf(stream, shard);
            FelixClientException failure;
            if (leader == null) {
                failure = new FelixClientException(ErrorCode.UNAVAILABLE, "no node leads shard " + shard + " of "
                        + stream + " at the moment");
            } else {
                try {
                    return attempt(leader, shard, payload, deadline);
                } catch (FelixClientException e) {
                    failure = e;
                    if (e.code() == ErrorCode.NOT_LEADER && cluster.routes().learned(stream.toString(), shard,
                            e.leader())) {
                        cluster.redirected();
                        if (attempt++ < 3) {
                            continue; // a fresh hint: follow it at once, a few times before pacing
                        }
                    } else if (!retriable(e.code())) {
                        throw e;
                    } else {
                        cluster.routes().forget(stream.toString(), shard);
                        dropIfDead(leader);
                    }
                }
            }
            cluster.retried();
            if (!Backoff.pause(attempt++, deadline)) {
                throw failure;
            }
        }
    }

    /** Whether a publish that failed with {@code code} may be sent again (see {@link FelixCluster}). */
    static boolean retriable(ErrorCode code) {
        return switch (code) {
            case NOT_LEADER, UNAVAILABLE, CONNECTION_LOST, BROKER_SHUTTING_DOWN, TIMEOUT -> true;
            default -> false;
        };
    }

    private PublishAck attempt(InetSocketAddress leader, int shard, byte[] payload, long deadline) {
        Publisher p = publisherAt(leader);
        long wait = Math.max(1, deadline - System.nanoTime());
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
                    + FelixCluster.hostPort(leader) + " within the request timeout");
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
