package dev.felix.cluster.replication;

import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.cache.CacheSnapshots;
import dev.felix.storage.LogConfig;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import dev.felix.storage.StorageRuntime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's copy of a unit another node leads: fetches from its log end, appends what arrives in the log's
 * own layout (same offsets, same epoch boundaries), forces it under {@code on_commit} and says so, truncates
 * when the leader says its tail diverged, and stops fetching ("fences") when metadata says the leader is
 * lost — so its report can help elect a successor without its log growing afterwards.
 *
 * <p>The log is opened when the replica has data: at once if its directory exists, otherwise when the first
 * records (or a reset) arrive.
 *
 * <p><b>Log caches.</b> A cache's leader compacts its log below its snapshots. The replica of a cache therefore
 * also keeps the leader's snapshots (asked for every {@link #SNAPSHOT_POLL_NANOS} between fetches, and at once
 * after its log was reset to where the leader's log starts) and applies the leader's compaction rule to its own
 * log ({@link CacheSnapshots#retain}): a replica that takes over loads the cache from a snapshot and its log,
 * exactly as the leader would.
 *
 * <p><b>Threads.</b> Every state change runs on the replica's {@link SerialLane}; peer messages arrive on an
 * event loop and are moved onto it. {@link #report()} reads volatile fields from any thread.
 */
final class FollowerReplica {

    private static final Logger LOG = LoggerFactory.getLogger(FollowerReplica.class);

    /** How often the replica of a log cache asks its leader for a newer snapshot. */
    static final long SNAPSHOT_POLL_NANOS = TimeUnit.SECONDS.toNanos(2);

    final ShardKey key;
    final String label;
    private final Path dir;
    private final LogConfig config;
    private final StorageRuntime storage;
    private final boolean onCommit;
    private final PeerEndpoint endpoint;
    private final ReplicationSettings settings;
    private final SerialLane lane;
    private final ScheduledExecutorService timer;

    // Written on the lane; read by follower reads and adoption from any thread.
    private volatile SegmentedLog log;
    // Lane-confined.
    private PeerStream stream;
    private long generation;
    private int failures;
    private boolean stopped;
    /** Log caches: a snapshot is wanted before the next fetch (the log was reset past the local snapshots). */
    private boolean snapshotWanted;
    /** Log caches: when a snapshot was last asked for, nanoTime. */
    private long snapshotAskedAt = System.nanoTime() - SNAPSHOT_POLL_NANOS;
    /** Log caches: the snapshot being assembled, or null. */
    private SnapshotTransfer.Receiving receiving;
    /** The last request sent was a snapshot fetch: its answer (part or refusal) is the snapshot's. */
    private boolean awaitingSnapshot;
    /** The previous request was a snapshot fetch (mid-transfer, the next one fetches records). */
    private boolean lastWasSnapshot;

    // Read by reports and the manager from any thread.
    private volatile long epoch = -1;
    private volatile String leader;
    private volatile InetSocketAddress leaderAddress;
    private volatile boolean fetching;
    private volatile long fencedEpoch = -1;
    private volatile long hwm;
    private volatile long end;
    private volatile long durable;
    private volatile long lastEpoch = -1;

    private final ReplicationMetrics metrics;

    FollowerReplica(ShardKey key, String label, Path dir, LogConfig config, StorageRuntime storage, boolean onCommit,
            PeerEndpoint endpoint, ReplicationSettings settings, SerialLane lane, ScheduledExecutorService timer,
            ReplicationMetrics metrics) {
        this.metrics = metrics;
        this.key = key;
        this.label = label;
        this.dir = dir;
        this.config = config;
        this.storage = storage;
        this.onCommit = onCommit;
        this.endpoint = endpoint;
        this.settings = settings;
        this.lane = lane;
        this.timer = timer;
        lane.execute(() -> {
            if (Files.isDirectory(dir)) {
                if (key.kind() == ShardKey.Kind.CACHE) {
                    CacheSnapshots.deleteParts(dir); // transfers a crash or stop interrupted
                }
                openLog();
            }
        });
    }

    /** Follows {@code leaderNode} (at {@code address}) at {@code epoch}; a no-op if it already does. */
    void follow(long newEpoch, String leaderNode, InetSocketAddress address) {
        lane.execute(() -> {
            if (stopped || (fetching && epoch == newEpoch && leaderNode.equals(leader) && address.equals(leaderAddress))) {
                return;
            }
            closeStream();
            epoch = newEpoch;
            leader = leaderNode;
            leaderAddress = address;
            fencedEpoch = -1;
            fetching = true;
            failures = 0;
            connect();
        });
    }

    /**
     * Stops fetching because metadata says the leader of {@code lostEpoch} is lost; the report then says so,
     * and the log does not grow until this replica follows again. {@code newlyFenced} runs (on the replica's
     * lane) when this fences an epoch it had not fenced before, once the report says so.
     */
    void fence(long lostEpoch, Runnable newlyFenced) {
        lane.execute(() -> {
            if (stopped) {
                return;
            }
            fetching = false;
            closeStream();
            if (lostEpoch > fencedEpoch) {
                fencedEpoch = lostEpoch;
                LOG.info("{}: stopped following the lost leader of epoch {} (log end {}, last epoch {})", label,
                        lostEpoch, end, lastEpoch);
                newlyFenced.run();
            }
        });
    }

    /**
     * Stops for good and closes the log (this node is to lead the unit, or no longer holds it). Completes,
     * on the lane, with the last high watermark the leader told.
     */
    CompletableFuture<Long> stop() {
        CompletableFuture<Long> done = new CompletableFuture<>();
        lane.execute(() -> {
            stopped = true;
            fetching = false;
            closeStream();
            abandonSnapshot();
            if (log != null) {
                try {
                    log.close();
                } catch (RuntimeException e) {
                    LOG.warn("{}: closing the replica log failed: {}", label, e.toString());
                }
                log = null;
            }
            done.complete(hwm);
        });
        return done;
    }

    ReplicaReport report() {
        return new ReplicaReport(key, lastEpoch, end, durable, fencedEpoch);
    }

    long epoch() {
        return epoch;
    }

    boolean fetching() {
        return fetching;
    }

    /** The log if it is open (for a returning leader adopting records of its epoch). Any thread may read it. */
    SegmentedLog log() {
        return log;
    }

    Path directory() {
        return dir;
    }

    long highWatermark() {
        return hwm;
    }

    // ------------------------------------------------------------------ conversation (lane)

    private void connect() {
        long gen = ++generation;
        String node = leader;
        InetSocketAddress address = leaderAddress;
        endpoint.open(node, address, new Listener(gen)).whenComplete((s, error) -> lane.execute(() -> {
            if (gen != generation || !fetching) {
                if (s != null) {
                    s.close();
                }
                return;
            }
            if (error != null) {
                LOG.debug("{}: cannot reach leader {} at {}: {}", label, node, address, error.toString());
                retryLater(gen);
                return;
            }
            stream = s;
            sendFetch();
        }));
    }

    private void sendFetch() {
        PeerStream s = stream;
        if (s == null || !fetching) {
            return;
        }
        boolean snapshotTurn = key.kind() == ShardKey.Kind.CACHE && (receiving != null
                // during a transfer, parts alternate with record fetches, so replication never pauses for it
                ? !lastWasSnapshot
                : snapshotWanted || System.nanoTime() - snapshotAskedAt >= SNAPSHOT_POLL_NANOS);
        if (snapshotTurn) {
            lastWasSnapshot = true;
            sendSnapshotFetch(s);
            return;
        }
        lastWasSnapshot = false;
        awaitingSnapshot = false;
        // Mid-transfer the leader must answer at once (no long poll), or each part would wait for new records.
        s.send(new PeerMessage.Fetch(key, epoch, end, lastEpoch, durable, settings.fetchMaxBytes(),
                receiving != null ? 0 : (int) settings.fetchWait().toMillis(), -1));
    }

    private void onRecords(PeerMessage.Records r) {
        hwm = Math.max(hwm, Math.min(r.hwm(), r.leaderEnd()));
        if (r.count() > 0) {
            if (r.from() != end) {
                sendFetch(); // an answer to an older question (the log moved since): ask again
                return;
            }
            try {
                openLog();
                if (r.recordsEpoch() >= 0 && log.lastEpoch() < r.recordsEpoch()) {
                    log.beginEpoch(r.recordsEpoch());
                }
                log.appendRaw(r.from(), r.bytes());
                metrics.received(r.bytes().length);
            } catch (StorageException e) {
                LOG.error("{}: cannot append {} replicated records at {}: {}", label, r.count(), r.from(), e.getMessage());
                retryLater(generation);
                return;
            }
            end = log.tailOffset();
            lastEpoch = log.lastEpoch();
            if (onCommit) {
                long written = end;
                long gen = generation;
                log.flush(written).whenComplete((v, error) -> lane.execute(() -> {
                    if (error == null && log != null) {
                        durable = Math.max(durable, log.durableOffset());
                        PeerStream s = stream;
                        if (gen == generation && s != null) {
                            s.send(new PeerMessage.Progress(key, epoch, end, durable));
                        }
                    }
                }));
            } else {
                durable = end;
            }
        }
        failures = 0;
        sendFetch();
    }

    // ------------------------------------------------------------------ log caches: the leader's snapshots

    private void sendSnapshotFetch(PeerStream s) {
        long after;
        try {
            after = CacheSnapshots.newest(dir).orElse(-1);
        } catch (IOException e) {
            after = -1;
        }
        snapshotAskedAt = System.nanoTime();
        awaitingSnapshot = true;
        SnapshotTransfer.Receiving r = receiving;
        s.send(new PeerMessage.SnapshotFetch(key, epoch, after, r == null ? -1 : r.offset(),
                r == null ? 0 : r.written(), settings.fetchMaxBytes()));
    }

    private void onSnapshotPart(PeerMessage.SnapshotPart p) {
        awaitingSnapshot = false;
        if (p.offset() < 0) {
            snapshotWanted = false; // nothing newer than what this replica keeps
            sendFetch();
            return;
        }
        try {
            if (receiving == null || receiving.offset() != p.offset()) {
                abandonSnapshot();
                receiving = new SnapshotTransfer.Receiving(dir, p.offset());
            }
            if (receiving.accept(p)) {
                LOG.info("{}: installed the leader's snapshot at offset {} ({} bytes)", label, p.offset(), p.total());
                receiving = null;
                snapshotWanted = false;
                metrics.received(p.bytes().length);
                openLog();
                CacheSnapshots.retain(dir, log);
                refreshPosition();
            } else {
                metrics.received(p.bytes().length);
            }
        } catch (IOException | IllegalArgumentException | StorageException e) {
            LOG.warn("{}: taking the leader's snapshot at {} failed ({}); asking again", label, p.offset(), e.getMessage());
            abandonSnapshot();
            retryLater(generation);
            return;
        }
        sendFetch();
    }

    private void abandonSnapshot() {
        if (receiving != null) {
            receiving.abandon();
            receiving = null;
        }
    }

    private void onRefused(PeerMessage.Refused r) {
        if (awaitingSnapshot) {
            awaitingSnapshot = false;
            abandonSnapshot();
            if (r.code() == PeerMessage.Refusal.TRIMMED) {
                sendFetch(); // the leader compacted it away mid-transfer: ask for its newest
            } else {
                LOG.debug("{}: snapshot fetch refused ({}): {}", label, r.code(), r.message());
                retryLater(generation);
            }
            return;
        }
        switch (r.code()) {
            case DIVERGED -> {
                try {
                    openLog();
                    if (r.offset() < log.tailOffset()) {
                        LOG.info("{}: truncating the replica log from {} to {} ({})", label, log.tailOffset(), r.offset(),
                                r.message());
                        log.truncate(r.offset());
                        metrics.truncated();
                    }
                    refreshPosition();
                } catch (StorageException e) {
                    LOG.error("{}: cannot truncate to {}: {}", label, r.offset(), e.getMessage());
                    retryLater(generation);
                    return;
                }
                sendFetch();
            }
            case TRIMMED -> {
                try {
                    openLog();
                    if (r.offset() > log.tailOffset()) {
                        LOG.info("{}: the leader's log starts at {}; resetting the replica log there", label, r.offset());
                        log.resetTo(r.offset());
                        // A log cache's log is only usable from a snapshot: take the leader's first.
                        snapshotWanted = key.kind() == ShardKey.Kind.CACHE;
                    }
                    refreshPosition();
                } catch (StorageException e) {
                    LOG.error("{}: cannot reset to {}: {}", label, r.offset(), e.getMessage());
                    retryLater(generation);
                    return;
                }
                sendFetch();
            }
            default -> {
                LOG.debug("{}: fetch refused ({}): {}", label, r.code(), r.message());
                retryLater(generation);
            }
        }
    }

    private void retryLater(long gen) {
        failures = Math.min(failures + 1, 8);
        long delay = Math.min(2000, settings.retryBackoff().toMillis() << (failures - 1));
        timer.schedule(() -> lane.execute(() -> {
            if (gen != generation || !fetching) {
                return;
            }
            PeerStream s = stream;
            if (s != null && s.isOpen()) {
                sendFetch();
            } else {
                closeStream();
                connect();
            }
        }), delay, TimeUnit.MILLISECONDS);
    }

    private void closeStream() {
        generation++;
        PeerStream s = stream;
        stream = null;
        if (s != null) {
            s.close();
        }
    }

    private void openLog() {
        if (log == null) {
            log = SegmentedLog.open(dir, config, storage);
            refreshPosition();
        }
    }

    private void refreshPosition() {
        end = log.tailOffset();
        lastEpoch = log.lastEpoch();
        durable = Math.min(log.durableOffset(), end);
    }

    /** Moves what a stream delivers onto the lane, ignoring an older conversation's messages. */
    private final class Listener implements PeerStream.Listener {
        private final long gen;

        Listener(long gen) {
            this.gen = gen;
        }

        @Override
        public void onMessage(PeerStream s, PeerMessage message) {
            lane.execute(() -> {
                if (gen != generation || !fetching) {
                    return;
                }
                if (message instanceof PeerMessage.Records r) {
                    onRecords(r);
                } else if (message instanceof PeerMessage.SnapshotPart p) {
                    onSnapshotPart(p);
                } else if (message instanceof PeerMessage.Refused r) {
                    onRefused(r);
                }
            });
        }

        @Override
        public void onClosed(PeerStream s, Throwable cause) {
            lane.execute(() -> {
                if (gen == generation && fetching) {
                    stream = null;
                    retryLater(gen);
                }
            });
        }
    }
}
