package dev.felix.client;

import dev.felix.wire.ErrorCode;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local copy of a cache that follows it to whichever node of a cluster serves it. A cache lives on one node;
 * when that node is lost (killed, or frozen and then found to have been replaced) the cluster moves the cache
 * to another node, and a memory cache starts there empty: a new incarnation. The mirror on the old node then
 * ends (the connection is lost, or the old node ends the watch and refuses it with {@code not_leader}); this
 * class then mirrors again from the cache's current home, starting with a fresh snapshot, so the copy converges
 * to the new incarnation and every listener is told with {@link CacheMirror.Listener#onReset}: the copy is
 * replaced, never reset silently. Until the new snapshot arrives, reads answer from the last copy.
 *
 * <p><b>Threads.</b> Reads are thread-safe and never block. Listeners run on the serving connection's event loop,
 * except the {@code onReset} that announces a new home, which runs on this mirror's own thread. Moving to a
 * new home runs on that thread too ({@code felix-cluster-mirror}), retrying with full-jitter backoff until
 * the cache is served again or the mirror is closed.
 */
public final class ClusterMirror implements AutoCloseable {

    private final FelixCluster cluster;
    private final CacheRef ref;
    private final String prefix;
    private final List<CacheMirror.Listener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService mover;
    private final AtomicLong homes = new AtomicLong();
    private volatile CacheMirror current;
    private volatile FelixClientException endCause;
    private volatile boolean closed;

    private ClusterMirror(FelixCluster cluster, CacheRef ref, String prefix) {
        this.cluster = cluster;
        this.ref = ref;
        this.prefix = prefix;
        this.mover = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "felix-cluster-mirror");
            t.setDaemon(true);
            return t;
        });
    }

    static ClusterMirror start(FelixCluster cluster, CacheRef ref, String prefix) {
        ClusterMirror m = new ClusterMirror(cluster, ref, prefix);
        try {
            m.install(m.mirrorAtHome(System.nanoTime() + cluster.config().requestTimeout().toNanos()));
        } catch (FelixClientException e) {
            m.close();
            throw e;
        }
        return m;
    }

    public CacheRef ref() {
        return ref;
    }

    /** The value of {@code key} in the local copy. */
    public Optional<byte[]> get(String key) {
        return current.get(key);
    }

    /** The whole local copy. */
    public Map<String, byte[]> snapshot() {
        return current.snapshot();
    }

    /** The next change offset the copy expects from the cache's current home (offsets restart with a new one). */
    public long appliedOffset() {
        return current.appliedOffset();
    }

    /** Whether the copy follows the cache's current home live (false while it moves, or after it ended). */
    public boolean caughtUp() {
        return !closed && endCause == null && current.caughtUp();
    }

    /** How many nodes this mirror has taken a snapshot from: 1, plus one for every move of the cache. */
    public long homes() {
        return homes.get();
    }

    /** Why the mirror ended for good (an error it cannot recover from by moving), or null. */
    public FelixClientException endCause() {
        return endCause;
    }

    /** Adds a listener for applied changes and resets, here and at every later home. */
    public void addListener(CacheMirror.Listener listener) {
        synchronized (listeners) { // not between install's copy of the listeners and its switch to a new home
            listeners.add(listener);
            current.addListener(listener);
        }
    }

    /**
     * {@link #addListener} with a copy of the local state taken at the same moment at the current home
     * ({@link CacheMirror#snapshotAndListen}): no change is both in the copy and given to the listener, and none is
     * missed; a later home is announced with {@code onReset}. Must not be called from a listener.
     */
    public CacheMirror.Copy snapshotAndListen(CacheMirror.Listener listener) {
        synchronized (listeners) {
            listeners.add(listener);
            return current.snapshotAndListen(listener);
        }
    }

    @Override
    public void close() {
        closed = true;
        mover.shutdownNow();
        CacheMirror m = current;
        if (m != null) {
            m.close();
        }
    }

    // ------------------------------------------------------------------ moving

    private void install(CacheMirror m) {
        CacheMirror old;
        List<CacheMirror.Listener> moved; // only these are told of the new home: a later one's copy is from it
        synchronized (listeners) {
            moved = List.copyOf(listeners);
            for (CacheMirror.Listener l : moved) {
                m.addListener(l);
            }
            old = current;
            current = m;
        }
        long n = homes.incrementAndGet();
        if (old != null) {
            old.close();
        }
        if (n > 1) {
            for (CacheMirror.Listener l : moved) {
                l.onReset(m.appliedOffset()); // the copy was replaced by the new home's snapshot
            }
        }
        m.onEnd(this::ended);
    }

    /** The serving mirror ended (on its event loop): move if the cache may be served elsewhere, else end. */
    private void ended(FelixClientException cause) {
        if (closed) {
            return;
        }
        if (!movable(cause.code())) {
            endCause = cause;
            return;
        }
        cluster.routes().forget(ClusterRoutes.cacheRoute(ref.toString()), 0);
        try {
            mover.execute(this::move);
        } catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    private void move() {
        try {
            // Until closed: a copy that can follow the cache again must not give up while the cluster recovers.
            install(mirrorAtHome(System.nanoTime() + java.util.concurrent.TimeUnit.DAYS.toNanos(365)));
        } catch (FelixClientException e) {
            if (!closed) {
                endCause = e;
            }
        }
    }

    /**
     * A mirror on the node serving the cache now, asking the cluster where that is and following
     * {@code not_leader} hints, with full-jitter backoff between attempts until {@code deadlineNanos}.
     */
    private CacheMirror mirrorAtHome(long deadlineNanos) {
        String route = ClusterRoutes.cacheRoute(ref.toString());
        int attempt = 0;
        int redirects = 0;
        FelixClientException last = null;
        while (!closed) {
            InetSocketAddress home = cluster.cacheHomeOf(ref);
            if (home != null) {
                try {
                    return cluster.node(home).mirror(ref, prefix);
                } catch (FelixClientException e) {
                    last = e;
                    if (e.code() == ErrorCode.NOT_LEADER && cluster.routes().learned(route, 0, e.leader())
                            && redirects++ < 3) {
                        cluster.redirected();
                        continue; // a fresh hint: follow it at once, a few times before pacing
                    }
                    if (!movable(e.code())) {
                        throw e;
                    }
                    cluster.routes().forget(route, 0);
                }
            }
            cluster.retried();
            if (!Backoff.pause(attempt++, deadlineNanos)) {
                break;
            }
        }
        throw last != null ? last : new FelixClientException(ErrorCode.UNAVAILABLE, "no node serves cache " + ref
                + (closed ? " (the mirror was closed)" : " at the moment"));
    }

    /** Endings after which the cache may be served by another node (or by the same one again). */
    private static boolean movable(ErrorCode code) {
        return switch (code) {
            case NOT_LEADER, UNAVAILABLE, CONNECTION_LOST, BROKER_SHUTTING_DOWN, TIMEOUT -> true;
            default -> false;
        };
    }
}
