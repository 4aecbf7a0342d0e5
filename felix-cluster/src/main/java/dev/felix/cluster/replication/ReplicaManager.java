package dev.felix.cluster.replication;

import dev.felix.cluster.ClusterControl;
import dev.felix.cluster.ClusterListener;
import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.cache.CacheName;
import dev.felix.core.broker.Broker;
import dev.felix.storage.LogDirectories;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes this node's replicas match cluster metadata: for every unit this node holds a copy of, it leads it
 * (the shard runtime reopens at the new epoch, after the follower copy closed its log), follows its leader
 * (a {@link FollowerReplica}), or fences (the leader is lost: stop fetching so a successor can be elected).
 * When this node is the recorded leader of a unit that went unavailable while it was away, it adopts the
 * records of its own epoch its replicas hold past its recovered end and asks metadata to resume leadership.
 * What metadata no longer defines (a stream or cache deleted through another node) is closed here too: the
 * replica copies stop and their directories go, and the broker closes its runtimes ({@code closeDeleted}).
 *
 * <p><b>Threads.</b> Reconciles on its own thread ({@code felix-replica-manager}), after every metadata change
 * and once a second; the queries ({@link #readyToLead}, {@link #knownHighWatermark}, {@link #reports}) are
 * thread-safe.
 */
final class ReplicaManager implements ClusterListener {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);

    /** How long a step (closing a shard runtime, an adoption round) may take before it is retried. */
    static final long STEP_TIMEOUT_SECONDS = 10;

    private final String localNode;
    private final ClusterView view;
    private final ClusterControl control;
    private final ReplicationSettings settings;
    private final ExecutorService io;
    private final ScheduledExecutorService timer;
    private final Replication replication;
    private final ExecutorService thread;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Map<ShardKey, FollowerReplica> followers = new ConcurrentHashMap<>();
    /** Units whose runtime this node reopened to lead, and at which epoch. Manager thread. */
    private final Map<ShardKey, Long> leadingEpoch = new ConcurrentHashMap<>();
    /** Epoch each unit may be opened at as leader (the follower copy is closed). */
    private final Map<ShardKey, Long> readyEpoch = new ConcurrentHashMap<>();
    /** The last high watermark a follower copy was told, kept when it stops to lead. */
    private final Map<ShardKey, Long> highWatermarks = new ConcurrentHashMap<>();
    private final Set<ShardKey> resuming = ConcurrentHashMap.newKeySet();
    private volatile Broker broker;
    private volatile PeerEndpoint endpoint;
    private volatile boolean closed;

    ReplicaManager(String localNode, ClusterView view, ClusterControl control, ReplicationSettings settings,
            ExecutorService io, ScheduledExecutorService timer, Replication replication) {
        this.localNode = localNode;
        this.view = view;
        this.control = control;
        this.settings = settings;
        this.io = io;
        this.timer = timer;
        this.replication = replication;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "felix-replica-manager");
            t.setDaemon(true);
            return t;
        });
    }

    void start(Broker b, PeerEndpoint e) {
        this.broker = b;
        this.endpoint = e;
        thread.execute(this::removeOrphans); // before the first reconcile opens anything
        view.addListener(this);
        timer.scheduleWithFixedDelay(this::schedule, 1, 1, TimeUnit.SECONDS);
        schedule();
    }

    @Override
    public void changed(ClusterView v, long version) {
        schedule();
    }

    /** Runs a reconcile soon (coalesced). Any thread. */
    void schedule() {
        if (!closed && broker != null && scheduled.compareAndSet(false, true)) {
            thread.execute(() -> {
                scheduled.set(false);
                try {
                    reconcile();
                } catch (RuntimeException e) {
                    LOG.error("reconciling replicas failed; retrying in a second", e);
                }
            });
        }
    }

    boolean readyToLead(ShardKey key, long epoch) {
        Long ready = readyEpoch.get(key);
        return ready != null && ready == epoch;
    }

    /** The follower copy of {@code key}, if this node follows it. */
    Optional<FollowerReplica> follower(ShardKey key) {
        return Optional.ofNullable(followers.get(key));
    }

    /**
     * Stops this node's follower copy of {@code key}, if it has one: its unit was deleted (through this node) and
     * the broker removes the directory next. On the manager's thread, so a reconcile under way does not meet a
     * copy closing beneath it. Completes once the copy's log has closed; at once when there is none or the
     * manager is closing (its close stops every copy). Any thread.
     */
    CompletableFuture<Void> releaseCopy(ShardKey key) {
        CompletableFuture<FollowerReplica> removed;
        try {
            removed = CompletableFuture.supplyAsync(() -> followers.remove(key), thread);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
        return removed.thenCompose(f -> f == null ? CompletableFuture.<Void>completedFuture(null)
                : f.stop().thenApply(end -> (Void) null));
    }

    /** A gate of {@code key} on this node closed having committed up to {@code end}. */
    void noteHighWatermark(ShardKey key, long end) {
        highWatermarks.merge(key, end, Math::max);
    }

    long knownHighWatermark(ShardKey key) {
        FollowerReplica f = followers.get(key);
        if (f != null) {
            return f.highWatermark();
        }
        return highWatermarks.getOrDefault(key, 0L);
    }

    List<ReplicaReport> reports() {
        List<ReplicaReport> out = new ArrayList<>(followers.size());
        for (FollowerReplica f : followers.values()) {
            out.add(f.report());
        }
        return out;
    }

    void close() {
        closed = true;
        thread.shutdownNow();
        List<CompletableFuture<Long>> stops = new ArrayList<>();
        for (FollowerReplica f : followers.values()) {
            stops.add(f.stop());
        }
        try {
            CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new)).get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("replica logs did not all close in time: {}", e.toString());
        }
    }

    // ------------------------------------------------------------------ reconcile (manager thread)

    private void reconcile() {
        if (closed) {
            return;
        }
        Set<ShardKey> held = new HashSet<>();
        for (ShardPlacement p : view.placements()) {
            boolean cache = p.key().kind() == ShardKey.Kind.CACHE;
            if (cache && (!p.durable() || !p.replicas().contains(localNode))) {
                releaseIfMoved(p); // a memory cache, or a log cache this node holds no copy of
                continue;
            }
            if (!p.replicas().contains(localNode)) {
                continue;
            }
            held.add(p.key());
            Optional<ReplicatedUnit> parsed = ReplicatedUnit.of(p);
            if (parsed.isEmpty()) {
                LOG.warn("placement of {} names no {} ('{}')", p.key(), cache ? "cache" : "stream", p.name());
                continue;
            }
            ReplicatedUnit unit = parsed.get();
            try {
                if (localNode.equals(p.leader())) {
                    if (p.status() == ShardStatus.ONLINE) {
                        lead(p, unit);
                    } else if (p.durable()) {
                        resume(p, unit);
                    }
                } else {
                    if (leadingEpoch.containsKey(p.key())) {
                        stepDown(p, unit);
                    } else if (cache) {
                        releaseIfMoved(p); // an instance opened here before this node knew it does not lead
                    }
                    if (p.durable()) {
                        follow(p, unit);
                    }
                }
            } catch (FelixException | RuntimeException e) {
                if (closed) {
                    return; // the node is stopping: its close interrupted this step (or shut the lanes' pool)
                }
                LOG.warn("{} of {}: {}; retrying", p.key(), p.name(), e.getMessage());
            }
        }
        for (ShardKey key : List.copyOf(followers.keySet())) {
            if (!held.contains(key)) {
                FollowerReplica f = followers.remove(key);
                Path dir = f == null ? null : f.directory();
                if (f != null) {
                    await(f.stop());
                    if (dir != null && view.placement(key).isEmpty()) {
                        removeQuietly(dir); // the stream was deleted
                    }
                }
            }
        }
        leadingEpoch.keySet().retainAll(held);
        readyEpoch.keySet().retainAll(held);
        // A delete runs on the node that was asked; here the runtimes of what metadata no longer defines close
        // (subscribers and watchers end with not_found, a leader's gate goes, logs are removed). After the
        // follower copies above stopped, so no replica log is removed while open.
        await(broker.closeDeleted());
    }

    /**
     * Removes the log directories of units metadata no longer holds: streams and caches deleted while this node
     * was down (a node that is up removes its copies when the delete is applied). Runs once, at start, when this
     * node's metadata has caught up with the cluster's: a directory whose uid no placement names was deleted.
     * Legacy directories (no uid in their name) are never touched.
     */
    private void removeOrphans() {
        Path root = broker.logsRoot();
        if (root == null || !Files.isDirectory(root)) {
            return;
        }
        // Directories first, placements second: a directory created meanwhile has its placement applied already.
        List<Path> candidates = new ArrayList<>();
        try (var dirs = Files.newDirectoryStream(root)) {
            for (Path d : dirs) {
                if (LogDirectories.uidOf(d.getFileName().toString()) != 0 && Files.isDirectory(d)) {
                    candidates.add(d);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("cannot list {} for logs of deleted units: {}", root, e.toString());
            return;
        }
        Set<Long> live = new HashSet<>();
        for (ShardPlacement p : view.placements()) {
            live.add(p.key().uid());
        }
        List<Path> orphans = new ArrayList<>();
        for (Path d : candidates) {
            if (!live.contains(LogDirectories.uidOf(d.getFileName().toString()))) {
                orphans.add(d);
            }
        }
        for (Path d : orphans) {
            LOG.info("removing {}: its stream or cache was deleted while this node was away", d);
            removeQuietly(d);
        }
    }

    /**
     * A cache this node does not lead (it moved while this node was down or frozen, or nobody can serve it):
     * close any instance still open here, so its watchers end with the reason instead of following a copy
     * that no longer changes. The next lookup on this node opens it afresh.
     */
    private void releaseIfMoved(ShardPlacement p) {
        if (localNode.equals(p.leader()) && p.status() == ShardStatus.ONLINE) {
            return;
        }
        CacheName name;
        try {
            name = CacheName.parse(p.name());
        } catch (RuntimeException e) {
            LOG.warn("placement of {} names no cache ('{}')", p.key(), p.name());
            return;
        }
        FelixError reason = p.status() == ShardStatus.ONLINE
                ? FelixError.of(ErrorCode.NOT_LEADER, "node " + p.leader() + " now serves cache " + name + " (epoch "
                        + p.epoch() + ")")
                : FelixError.of(ErrorCode.UNAVAILABLE, p.reason() != null ? p.reason() : "no node serves cache " + name);
        await(broker.caches().release(name, reason));
    }

    /** This node leads {@code p}: close the follower copy, then reopen the unit's runtime at the epoch. */
    private void lead(ShardPlacement p, ReplicatedUnit unit) throws FelixException {
        Long led = leadingEpoch.get(p.key());
        if (led != null && led == p.epoch()) {
            return;
        }
        FollowerReplica f = followers.remove(p.key());
        if (f != null) {
            highWatermarks.put(p.key(), await(f.stop()));
        }
        FelixError moved = FelixError.of(ErrorCode.UNAVAILABLE,
                "leadership of " + unit.label() + " moved (epoch " + p.epoch() + "); retry");
        if (unit.reopensInPlace()) {
            // A shard reopens on its own writer: it may open at the new epoch as soon as the copy above closed.
            readyEpoch.put(p.key(), p.epoch());
            await(unit.reopen(broker, moved));
        } else {
            // A cache is a new instance after its release: the old one closes first, or a lookup meanwhile would
            // build a second instance on the same directory while the first is still closing.
            await(unit.reopen(broker, moved));
            readyEpoch.put(p.key(), p.epoch());
        }
        leadingEpoch.put(p.key(), p.epoch());
        LOG.info("leading {} at epoch {} ({})", unit.label(), p.epoch(), p.consistency().wireName());
        if (p.durable()) {
            // Open it now, so followers can fetch before the first client uses it.
            unit.load(broker);
        }
    }

    /** Another node leads (or nobody can): end this node's runtime of the unit with the reason. */
    private void stepDown(ShardPlacement p, ReplicatedUnit unit) {
        FelixError reason = p.status() == ShardStatus.ONLINE
                ? FelixError.of(ErrorCode.NOT_LEADER, "node " + p.leader() + " now leads " + unit.label()
                        + " (epoch " + p.epoch() + ")")
                : FelixError.of(ErrorCode.UNAVAILABLE, p.reason() != null ? p.reason() : "no leader");
        readyEpoch.remove(p.key());
        await(unit.reopen(broker, reason));
        leadingEpoch.remove(p.key());
        LOG.info("no longer leading {}: {}", unit.label(), reason.message());
    }

    /** Follow the leader of {@code p}, or fence when it is lost. */
    private void follow(ShardPlacement p, ReplicatedUnit unit) throws FelixException {
        FollowerReplica f = followers.get(p.key());
        if (f == null) {
            Optional<ReplicatedUnit.Local> local = unit.local(broker, p.key().uid());
            if (local.isEmpty()) {
                return; // metadata of the unit not applied here yet
            }
            f = new FollowerReplica(p.key(), unit.label(), local.get().dir(), local.get().logConfig(),
                    broker.storage(), local.get().onCommit(), endpoint, settings,
                    new SerialLane(io, unit.label()), timer, replication.metrics());
            followers.put(p.key(), f);
        }
        Optional<NodeInfo> leader = p.leader() == null ? Optional.empty() : view.node(p.leader());
        Optional<InetSocketAddress> address = p.leader() == null ? Optional.empty() : replication.peerAddress(p.leader());
        if (p.status() == ShardStatus.ONLINE && leader.isPresent() && leader.get().up() && address.isPresent()) {
            f.follow(p.epoch(), p.leader(), address.get());
        } else {
            // A quorum failover waits for a majority of fenced reports: send this one now, not at the next
            // heartbeat (up to cluster_heartbeat_ms later).
            f.fence(p.epoch(), control::reportNow);
        }
    }

    /**
     * This node is the recorded leader of a unit that went unavailable while it was away: adopt what its
     * replicas hold of its own epoch past its end, then ask metadata to resume leadership (a new epoch).
     */
    private void resume(ShardPlacement p, ReplicatedUnit unit) throws FelixException {
        if (!resuming.add(p.key())) {
            return;
        }
        try {
            if (leadingEpoch.containsKey(p.key())) {
                stepDown(p, unit); // a leader that was frozen, not restarted: its runtime must let go of the log
            }
            FollowerReplica f = followers.remove(p.key());
            if (f != null) {
                await(f.stop());
            }
            Optional<ReplicatedUnit.Local> local = unit.local(broker, p.key().uid());
            if (local.isEmpty()) {
                return;
            }
            Path dir = local.get().dir();
            long adopted = 0;
            if (Files.isDirectory(dir) || !p.followers().isEmpty()) {
                try (SegmentedLog log = SegmentedLog.open(dir, local.get().logConfig(), broker.storage())) {
                    adopted = adopt(p, log);
                    log.sync();
                }
            }
            LOG.info("{}: back as its recorded leader; adopted {} record(s) of epoch {} from replicas; resuming",
                    unit.label(), adopted, p.epoch());
            await(control.resumeLeadership(p.key(), p.epoch()));
        } finally {
            resuming.remove(p.key());
        }
    }

    /** Fetches records of {@code p}'s epoch past {@code log}'s end from every reachable replica. */
    private long adopt(ShardPlacement p, SegmentedLog log) {
        long adopted = 0;
        for (String node : p.followers()) {
            Optional<InetSocketAddress> address = replication.peerAddress(node);
            Optional<NodeInfo> info = view.node(node);
            if (address.isEmpty() || info.isEmpty() || !info.get().up()) {
                LOG.warn("{}: replica {} is not reachable to adopt from", p.key(), node);
                continue;
            }
            Conversation c = new Conversation();
            PeerStream stream;
            try {
                stream = endpoint.open(node, address.get(), c).get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("{}: cannot reach replica {} to adopt from: {}", p.key(), node, e.toString());
                continue;
            }
            try {
                while (true) {
                    PeerMessage answer = c.ask(stream, new PeerMessage.Fetch(p.key(), p.epoch(), log.tailOffset(),
                            log.lastEpoch(), log.durableOffset(), settings.fetchMaxBytes(), 0, p.epoch()));
                    if (!(answer instanceof PeerMessage.Records r) || r.count() == 0 || r.from() != log.tailOffset()) {
                        break;
                    }
                    if (log.lastEpoch() < r.recordsEpoch()) {
                        log.beginEpoch(r.recordsEpoch());
                    }
                    log.appendRaw(r.from(), r.bytes());
                    adopted += r.count();
                }
            } catch (StorageException e) {
                LOG.error("{}: adopting from {} failed: {}", p.key(), node, e.getMessage());
            } finally {
                stream.close();
            }
        }
        return adopted;
    }

    // ------------------------------------------------------------------ peer requests (event loops)

    /** A returning leader asks for records of its epoch from this node's copy. */
    void serveAdoption(PeerStream stream, PeerMessage.Fetch f) {
        FollowerReplica replica = followers.get(f.key());
        SegmentedLog log = replica == null ? null : replica.log();
        if (log == null) {
            stream.send(new PeerMessage.Records(-1, f.from(), -1, 0, 0, 0, new byte[0]));
            return;
        }
        io.execute(() -> stream.send(ReplicatedGate.read(log, f.from(), Math.min(f.maxBytes(), settings.fetchMaxBytes()),
                replica.epoch(), replica.highWatermark(), f.onlyEpoch(), replica.label)));
    }

    /** A fetch for a unit whose runtime is not open here: open it if this node leads it, else refuse. */
    void leaderNotOpen(PeerStream stream, PeerMessage.Fetch f) {
        leaderNotOpen(stream, f.key(), f.epoch());
    }

    /** As {@link #leaderNotOpen(PeerStream, PeerMessage.Fetch)}, for any request naming {@code key} at {@code epoch}. */
    void leaderNotOpen(PeerStream stream, ShardKey key, long epoch) {
        Optional<ShardPlacement> p = view.placement(key);
        if (p.isPresent() && localNode.equals(p.get().leader()) && p.get().status() == ShardStatus.ONLINE
                && readyToLead(key, p.get().epoch()) && epoch == p.get().epoch()) {
            Optional<ReplicatedUnit> unit = ReplicatedUnit.of(p.get());
            io.execute(() -> {
                try {
                    if (unit.isPresent()) {
                        unit.get().load(broker);
                    }
                } catch (FelixException | RuntimeException e) {
                    LOG.debug("opening {} for a follower failed: {}", key, e.toString());
                }
            });
            stream.send(new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, p.get().epoch(), -1,
                    "the leader is opening " + unit.map(ReplicatedUnit::label).orElse(p.get().name()) + "; retry"));
            return;
        }
        long current = p.map(ShardPlacement::epoch).orElse(-1L);
        PeerMessage.Refusal code = p.isPresent() && epoch < current ? PeerMessage.Refusal.STALE_EPOCH
                : p.isEmpty() ? PeerMessage.Refusal.UNKNOWN : PeerMessage.Refusal.NOT_LEADER;
        stream.send(new PeerMessage.Refused(code, current, -1, "this node does not lead " + key + " at epoch "
                + epoch));
    }

    // ------------------------------------------------------------------ helpers

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        } catch (Exception e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException(c.getMessage(), c);
        }
    }

    private static void removeQuietly(Path dir) {
        try {
            LogDirectories.delete(dir);
        } catch (StorageException e) {
            LOG.warn("could not remove the replica log of a deleted stream or cache under {}: {}", dir, e.getMessage());
        }
    }

    /** A request/response conversation on one peer stream (adoption). */
    private static final class Conversation implements PeerStream.Listener {
        private volatile CompletableFuture<PeerMessage> answer = new CompletableFuture<>();

        PeerMessage ask(PeerStream stream, PeerMessage question) {
            CompletableFuture<PeerMessage> a = new CompletableFuture<>();
            answer = a;
            stream.send(question);
            try {
                return a.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                return null;
            }
        }

        @Override
        public void onMessage(PeerStream stream, PeerMessage message) {
            answer.complete(message);
        }

        @Override
        public void onClosed(PeerStream stream, Throwable cause) {
            answer.complete(null);
        }
    }
}
