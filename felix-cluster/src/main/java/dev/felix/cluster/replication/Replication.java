package dev.felix.cluster.replication;

import dev.felix.cluster.ClusterControl;
import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ReplicaReporter;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.broker.Broker;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.storage.SegmentedLog;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Shard replication on one node: the {@link GateFactory} that makes a durable shard this node leads commit
 * through its replicas, the leader's side of fetches (served from the shard's {@link ReplicatedGate}), this
 * node's follower copies ({@link FollowerReplica}, driven by {@link ReplicaManager} from the cluster view),
 * and the reports sent with heartbeats.
 *
 * <p>Wiring order: create it; start the {@link PeerEndpoint} with {@link #acceptor()}; create the broker with
 * this as its gate factory; then {@link #start}.
 *
 * <p><b>Threads.</b> Thread-safe. Gates open on shard writers; fetches arrive on peer event loops; replica
 * logs are written on the replication pool (one lane per replica); placements are reconciled on the
 * manager's thread.
 */
public final class Replication implements GateFactory, ReplicaReporter, AutoCloseable {

    private final String localNode;
    private final ClusterView view;
    private final ReplicationSettings settings;
    private final ExecutorService io;
    private final ScheduledExecutorService timer;
    private final Map<ShardKey, ReplicatedGate> leading = new ConcurrentHashMap<>();
    private final ReplicaManager manager;
    private final ClusterControl control;
    private final ReplicationMetrics metrics;
    /** When the gauges were last refreshed, nanoTime. Ticker thread. */
    private long metricsRefreshed;

    public Replication(String localNode, ClusterView view, ClusterControl control, ReplicationSettings settings) {
        this(localNode, view, control, settings, null);
    }

    /** Like the other constructor, with the {@code felix_replication_*} meters in {@code registry} (null: none). */
    public Replication(String localNode, ClusterView view, ClusterControl control, ReplicationSettings settings,
            io.micrometer.core.instrument.MeterRegistry registry) {
        this.metrics = new ReplicationMetrics(registry, view);
        this.localNode = localNode;
        this.view = view;
        this.control = control;
        this.settings = settings;
        AtomicInteger n = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(settings.ioThreads(), r -> daemon(r, "felix-replication-" + n.incrementAndGet()));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "felix-replication-ticker"));
        this.manager = new ReplicaManager(localNode, view, control, settings, io, timer, this);
        timer.scheduleAtFixedRate(this::tick, settings.tick().toMillis(), settings.tick().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Starts following placements with {@code broker}'s logs over {@code endpoint}. */
    public void start(Broker broker, PeerEndpoint endpoint) {
        manager.start(broker, endpoint);
    }

    /** Who answers streams other nodes open to this one: the leader's side of fetches. */
    public PeerEndpoint.Acceptor acceptor() {
        return stream -> new Serving();
    }

    // ------------------------------------------------------------------ GateFactory (shard writer)

    @Override
    public Opened open(LogRef ref, SegmentedLog log, boolean onCommit) throws FelixException {
        ShardKey key = keyOf(ref);
        ShardPlacement p = leadable(ref, key);
        if (log.lastEpoch() < p.epoch()) {
            log.beginEpoch(p.epoch());
        }
        long tail = log.tailOffset();
        long committed = p.consistency() == Consistency.LEADER ? tail
                : Math.max(log.baseOffset(), Math.min(tail, manager.knownHighWatermark(key)));
        ReplicatedGate[] holder = new ReplicatedGate[1];
        ReplicatedGate gate = new ReplicatedGate(key, ref.toString(), log, p.epoch(), p.consistency(), onCommit,
                p.followers(), p.replicas().size(), committed, settings, io, metrics,
                () -> {
                    // Reopened while still leading (a reload after a failure), the log must not start below what
                    // readers already saw: remember how far this gate committed.
                    manager.noteHighWatermark(key, holder[0].committedEnd());
                    leading.remove(key, holder[0]);
                });
        holder[0] = gate;
        ReplicatedGate previous = leading.put(key, gate);
        if (previous != null) {
            previous.close();
        }
        return new Opened(gate, committed);
    }

    @Override
    public void checkMayOpen(LogRef ref) throws FelixException {
        leadable(ref, keyOf(ref));
    }

    /** Stops this node's follower copy of a deleted unit before the broker removes its directory. */
    @Override
    public java.util.concurrent.CompletableFuture<Void> releaseCopy(LogRef ref) {
        return manager.releaseCopy(keyOf(ref));
    }

    /**
     * Whether this node leads {@code ref} online but has not finished taking it over yet (its follower copy is
     * still closing, for a moment after a placement or a move): a refusal now is worth asking again shortly.
     */
    public boolean takingOver(LogRef ref) {
        ShardKey key = keyOf(ref);
        return view.placement(key).filter(p -> localNode.equals(p.leader()) && p.status() == ShardStatus.ONLINE
                && !manager.readyToLead(key, p.epoch())).isPresent();
    }

    /** The unit's placement, provided this node leads it online and its follower copy has closed. */
    private ShardPlacement leadable(LogRef ref, ShardKey key) throws FelixException {
        ShardPlacement p = view.placement(key).orElseThrow(() -> new FelixException(ErrorCode.UNAVAILABLE,
                ref + " has no placement in cluster metadata yet; retry"));
        if (!localNode.equals(p.leader()) || p.status() != ShardStatus.ONLINE) {
            throw new FelixException(p.status() == ShardStatus.ONLINE ? ErrorCode.NOT_LEADER : ErrorCode.UNAVAILABLE,
                    p.status() == ShardStatus.ONLINE ? "node " + p.leader() + " leads " + ref + " (epoch " + p.epoch() + ")"
                            : p.reason());
        }
        if (!manager.readyToLead(key, p.epoch())) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "this node is taking over " + ref + " at epoch "
                    + p.epoch() + "; retry");
        }
        return p;
    }

    /**
     * Hands every unit this node leads (with its log open) to a follower that holds the whole log, waiting up
     * to {@code timeout} in all for one to catch up; returns how many were handed off. For a clean stop: the
     * caller has stopped taking publishes.
     */
    public int handOffAll(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int handed = 0;
        List<ReplicatedGate> gates = List.copyOf(leading.values());
        for (ReplicatedGate gate : gates) {
            gate.seal(); // from here on nothing more commits at this epoch: the target must hold all that did
        }
        for (ReplicatedGate gate : gates) {
            java.util.Set<String> up = new java.util.HashSet<>();
            for (NodeInfo n : view.nodes()) {
                if (n.up()) {
                    up.add(n.nodeId());
                }
            }
            String target = gate.caughtUpFollower(up);
            while (target == null && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // shutdown path only
                target = gate.caughtUpFollower(up);
            }
            if (target == null) {
                continue;
            }
            try {
                long left = Math.max(1, deadline - System.nanoTime());
                control.handOff(gate.key(), gate.epoch(), target).get(left, TimeUnit.NANOSECONDS);
                handed++;
            } catch (Exception e) {
                // not handed off: it fails over as if this node were lost
            }
        }
        return handed;
    }

    // ------------------------------------------------------------------ ReplicaReporter

    @Override
    public List<ReplicaReport> reports() {
        List<ReplicaReport> out = new ArrayList<>(manager.reports());
        for (ReplicatedGate g : leading.values()) {
            out.add(g.report());
        }
        return out;
    }

    /**
     * This node's own copy of {@code key} if it follows the unit and the copy has a log: reads from it are served
     * up to the high watermark the leader told it (never a record a later truncation could remove). Empty when
     * this node leads or does not hold the unit. Any thread.
     */
    public Optional<FollowerRead> followerRead(ShardKey key) {
        return manager.follower(key).map(f -> new FollowerRead(f));
    }

    /** Progress of {@code key} if this node leads it and its log is open. Any thread. */
    public Optional<LeaderProgress> progress(ShardKey key) {
        return leading(key).map(ReplicatedGate::progress);
    }

    /** Whether this node has taken over {@code key} at {@code epoch} (its follower copy closed). */
    boolean readyToLead(ShardKey key, long epoch) {
        return manager.readyToLead(key, epoch);
    }

    /** The gate of {@code key} if this node leads it now and its log is open. */
    Optional<ReplicatedGate> leading(ShardKey key) {
        return Optional.ofNullable(leading.get(key));
    }

    @Override
    public void close() {
        manager.close();
        timer.shutdownNow();
        io.shutdown();
        try {
            io.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static ShardKey keyOf(LogRef ref) {
        return new ShardKey(ref.kind() == LogRef.Kind.STREAM ? ShardKey.Kind.STREAM : ShardKey.Kind.CACHE, ref.uid(),
                ref.shard());
    }

    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** The peer address of {@code nodeId}, if it is known. */
    Optional<InetSocketAddress> peerAddress(String nodeId) {
        return view.node(nodeId).map(NodeInfo::peerAddress).filter(a -> a != null && a.contains(":"))
                .map(Replication::address);
    }

    private void tick() {
        long now = System.nanoTime();
        for (ReplicatedGate g : leading.values()) {
            g.tick(now);
        }
        if (now - metricsRefreshed >= METRICS_REFRESH_NANOS) {
            metricsRefreshed = now;
            try {
                metrics.refresh(reports(), Map.copyOf(leading), now);
            } catch (RuntimeException e) {
                // a shard closing under the refresh: its rows come back next time
            }
        }
    }

    private static final long METRICS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    ReplicationMetrics metrics() {
        return metrics;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The leader's side of one stream a follower opened. Peer event loop. */
    private final class Serving implements PeerStream.Listener {
        @Override
        public void onMessage(PeerStream stream, PeerMessage message) {
            if (message instanceof PeerMessage.Fetch f) {
                if (f.onlyEpoch() >= 0) {
                    manager.serveAdoption(stream, f);
                    return;
                }
                ReplicatedGate gate = leading.get(f.key());
                if (gate != null) {
                    gate.onFetch(stream, f);
                } else {
                    manager.leaderNotOpen(stream, f);
                }
            } else if (message instanceof PeerMessage.SnapshotFetch f) {
                ReplicatedGate gate = leading.get(f.key());
                if (gate != null) {
                    gate.onSnapshotFetch(stream, f);
                } else {
                    manager.leaderNotOpen(stream, f.key(), f.epoch()); // opens it if this node leads it
                }
            } else if (message instanceof PeerMessage.Progress p) {
                ReplicatedGate gate = leading.get(p.key());
                if (gate != null) {
                    gate.onProgress(stream.remoteNode(), p);
                }
            } else {
                stream.close(); // a follower sends only fetches, snapshot fetches and progress
            }
        }

        @Override
        public void onClosed(PeerStream stream, Throwable cause) {
        }
    }
}
