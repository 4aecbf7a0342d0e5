package dev.felix.client;

import dev.felix.wire.ErrorCode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Put, get and delete on a cache of a cluster: each operation goes to the cache's leader, following redirects
 * ({@code not_leader} names the leader) and failovers as {@link FelixCluster} describes, until the request
 * timeout. One {@link Cache} stream per node it needs. Thread-safe.
 *
 * <p>A put or delete retried after an attempt whose outcome is unknown (no answer in time, the connection lost,
 * the cache closed while the change waited for its commit) may have been applied twice: the value is the same,
 * but it took two change offsets. {@link #lastWriteMayBeRepeated()} says so for the calling thread's last write.
 */
public final class ClusterCache implements AutoCloseable {

    private final FelixCluster cluster;
    private final CacheRef ref;
    private final String route;
    private final Map<InetSocketAddress, Cache> streams = new ConcurrentHashMap<>();
    private final ThreadLocal<Boolean> repeated = ThreadLocal.withInitial(() -> false);

    ClusterCache(FelixCluster cluster, CacheRef ref) {
        this.cluster = cluster;
        this.ref = ref;
        this.route = ClusterRoutes.cacheRoute(ref.toString());
    }

    public CacheRef ref() {
        return ref;
    }

    /**
     * Sets {@code key} on the cache's leader; returns the change offset.
     *
     * @throws FelixClientException {@code quorum_timeout} as the broker worded it (not retried: the change may
     *                              still commit); the last refusal once the request timeout has passed; any other
     *                              error at once
     */
    public long put(String key, byte[] value, Duration ttl) {
        return call(c -> c.putAsync(key, value, ttl), true);
    }

    /** The value of {@code key} on the cache's leader, or empty if it is absent or expired. */
    public Optional<byte[]> get(String key) {
        return call(c -> c.getAsync(key), false);
    }

    /** Removes {@code key} on the cache's leader; returns the change offset, or {@code -1} if nothing was removed. */
    public long delete(String key) {
        return call(c -> c.deleteAsync(key), true);
    }

    /**
     * Whether this thread's last put or delete was sent again after an attempt whose outcome is unknown: it may
     * then have been applied twice (same value, two offsets).
     */
    public boolean lastWriteMayBeRepeated() {
        return repeated.get();
    }

    private <T> T call(Function<Cache, CompletableFuture<T>> op, boolean write) {
        if (write) {
            repeated.set(false);
        }
        long deadline = System.nanoTime() + cluster.config().requestTimeout().toNanos();
        int attempt = 0;
        while (true) {
            FelixClientException failure;
            try {
                return once(op, write, deadline);
            } catch (FelixClientException e) {
                failure = e;
            }
            if (failure.code() == ErrorCode.NOT_LEADER && cluster.routes().learned(route, 0, failure.leader())) {
                cluster.redirected();
                if (attempt++ < 3) {
                    continue; // a fresh hint: follow it at once, a few times before pacing
                }
            } else if (!ClusterPublisher.retriable(failure.code())) {
                throw failure;
            } else {
                cluster.routes().forget(route, 0);
            }
            cluster.retried();
            if (!Backoff.pause(attempt++, deadline)) {
                throw failure;
            }
        }
    }

    private <T> T once(Function<Cache, CompletableFuture<T>> op, boolean write, long deadline) {
        InetSocketAddress home = cluster.cacheHomeOf(ref);
        if (home == null) {
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "no node serves cache " + ref + " at the moment");
        }
        Cache c = streamAt(home); // a failure here sent nothing: the node is unreachable
        // One attempt waits longer than the quorum window (so quorum_timeout arrives as itself), not the whole
        // request timeout: a frozen leader must not hold the operation while a replica takes over.
        long wait = Math.max(1, Math.min(deadline - System.nanoTime(), ClusterPublisher.ATTEMPT_TIMEOUT_NANOS));
        try {
            return op.apply(c).get(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted while using cache " + ref);
        } catch (ExecutionException | TimeoutException e) {
            FelixClientException f = e instanceof TimeoutException
                    ? new FelixClientException(ErrorCode.TIMEOUT, "no answer from " + FelixCluster.hostPort(home)
                            + " within " + TimeUnit.NANOSECONDS.toMillis(wait) + " ms")
                    : e.getCause() instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, "cache operation failed: " + e.getCause(), -1,
                            e.getCause());
            if (write && (f.code() == ErrorCode.TIMEOUT || f.code() == ErrorCode.CONNECTION_LOST
                    || f.code() == ErrorCode.UNAVAILABLE)) {
                repeated.set(true);
            }
            dropIfDead(home, f);
            throw f;
        }
    }

    private Cache streamAt(InetSocketAddress node) {
        Cache c = streams.get(node);
        if (c != null && !c.closed()) {
            return c;
        }
        synchronized (streams) { // one new stream per node, even when several threads find it missing at once
            c = streams.get(node);
            if (c != null && !c.closed()) {
                return c;
            }
            Cache fresh = cluster.node(node).cache(ref);
            Cache old = streams.put(node, fresh);
            if (old != null) {
                old.close();
            }
            return fresh;
        }
    }

    /** Forgets the stream to a node that failed, so the next use opens a new one. */
    private void dropIfDead(InetSocketAddress node, FelixClientException f) {
        Cache c = streams.get(node);
        if (c != null && (c.closed() || f.code() == ErrorCode.CONNECTION_LOST || f.code() == ErrorCode.TIMEOUT)) {
            streams.remove(node, c);
            c.close();
        }
    }

    @Override
    public void close() {
        for (Cache c : List.copyOf(streams.values())) {
            c.close();
        }
        streams.clear();
    }
}
