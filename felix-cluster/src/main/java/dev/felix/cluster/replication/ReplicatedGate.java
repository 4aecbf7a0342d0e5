package dev.felix.cluster.replication;

import dev.felix.cluster.ShardKey;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.writer.CommitGate;
import dev.felix.storage.EpochEntry;
import dev.felix.storage.RawReadResult;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit gate of a shard this node leads at one epoch, and the leader's side of its replication.
 *
 * <p><b>Commit.</b> {@code leader}: a batch commits once the leader alone holds it (forced to disk under
 * {@code on_commit}, written otherwise). {@code quorum}: once a majority of the replicas holds it — the
 * leader's own copy plus what followers said they hold in their fetches and progress notes, counting
 * forced-to-disk copies under {@code on_commit} — the committed end is the majority-th highest position. A
 * {@code quorum} batch still short of a majority {@code quorumWindow} after its local append is refused
 * ({@link CommitGate.Committer#refused}) with the exact window text; it stays in the log and commits (and
 * becomes visible) if a majority later holds it. The writer never waits on this.
 *
 * <p><b>Shipping.</b> Records are shipped as soon as they are written, before the leader's own fsync, so
 * the follower's fsync overlaps the leader's. A fetch for records not yet written waits (parked) until the
 * next append or its long-poll time. Fetches are checked against the epoch (stale either way is refused)
 * and the follower's last epoch (a divergent tail is told where to truncate); a follower's position counts
 * only after those checks, so a deposed leader can never count a copy it did not send in its own epoch.
 *
 * <p><b>Threads.</b> {@link #appended} / {@link #force} / {@link #close} on the shard's writer; fetches and
 * progress on peer event loops; reads on the replication executor; {@link #tick} on the ticker. State is
 * guarded by this object's monitor; the committer and peer writes are called outside it.
 */
final class ReplicatedGate implements CommitGate {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedGate.class);

    /** Records one fetch answer carries at most. */
    static final int FETCH_MAX_RECORDS = 4096;

    private final ShardKey key;
    private final String label;
    private final SegmentedLog log;
    private final long epoch;
    private final Consistency consistency;
    private final boolean onCommit;
    private final List<String> followers;
    private final int majority;
    private final ReplicationSettings settings;
    private final Executor io;
    private final Runnable onClose;
    private final ReplicationMetrics metrics;

    // Guarded by this.
    private Committer committer;
    private long ownWritten;
    private long ownDurable;
    private long committed;
    /** Nothing at or past this commits here ({@link #seal}); {@code Long.MAX_VALUE} while unsealed. */
    private long sealedAt = Long.MAX_VALUE;
    private final Map<String, long[]> positions = new HashMap<>();
    /** {end, deadline nanos} of quorum batches not yet committed, oldest first. */
    private final ArrayDeque<long[]> deadlines = new ArrayDeque<>();
    private final List<Parked> parked = new ArrayList<>();
    private boolean closed;

    /** A fetch waiting for records. */
    private record Parked(PeerStream stream, PeerMessage.Fetch fetch, long deadlineNanos) {
    }

    ReplicatedGate(ShardKey key, String label, SegmentedLog log, long epoch, Consistency consistency, boolean onCommit,
            List<String> followers, int replicas, long committed, ReplicationSettings settings, Executor io,
            ReplicationMetrics metrics, Runnable onClose) {
        this.metrics = metrics;
        this.key = key;
        this.label = label;
        this.log = log;
        this.epoch = epoch;
        this.consistency = consistency;
        this.onCommit = onCommit;
        this.followers = List.copyOf(followers);
        this.majority = replicas / 2 + 1;
        this.settings = settings;
        this.io = io;
        this.onClose = onClose;
        this.committed = committed;
        this.ownWritten = log.tailOffset();
        this.ownDurable = log.durableOffset();
    }

    long epoch() {
        return epoch;
    }

    ShardKey key() {
        return key;
    }

    /** The committed end, the log end, and each follower's position, as of now. */
    synchronized LeaderProgress progress() {
        java.util.Map<String, Long> ends = new java.util.TreeMap<>();
        for (String f : followers) {
            long[] pos = positions.get(f);
            ends.put(f, pos == null ? 0 : pos[0]);
        }
        return new LeaderProgress(committed, ownWritten, ends);
    }

    /** This leader's own report on its log (it is not fenced). */
    dev.felix.cluster.ReplicaReport report() {
        return new dev.felix.cluster.ReplicaReport(key, log.lastEpoch(), log.tailOffset(), log.durableOffset(), -1);
    }

    /**
     * A follower holding this leader's whole log (forced to disk under {@code on_commit}) among {@code up},
     * or null: the one a clean hand-off may promote.
     */
    synchronized String caughtUpFollower(java.util.Set<String> up) {
        long needed = Math.min(ownWritten, sealedAt);
        for (String f : followers) {
            long[] pos = positions.get(f);
            if (pos != null && up.contains(f) && (onCommit ? pos[1] : pos[0]) >= needed) {
                return f;
            }
        }
        return null;
    }

    /**
     * Before a hand-off: nothing appended from now on commits through this gate (it waits, and is answered when
     * the gate closes). A hand-off promotes a follower holding everything below the returned offset; without the
     * seal, a write appended meanwhile could still reach a majority with the other follower, at this epoch, and
     * be acknowledged at an offset the new leader then gives to another write.
     */
    synchronized long seal() {
        sealedAt = Math.min(sealedAt, ownWritten);
        return sealedAt;
    }

    /** Offset below which readers may see records (the high watermark). */
    synchronized long committedEnd() {
        return committed;
    }

    // ------------------------------------------------------------------ writer side

    @Override
    public void appended(long end, Committer c) {
        List<Parked> wake;
        synchronized (this) {
            if (closed) {
                return;
            }
            committer = c;
            ownWritten = Math.max(ownWritten, end);
            if (!onCommit) {
                ownDurable = ownWritten; // "held" means written when the policy does not force each batch
            }
            if (consistency == Consistency.QUORUM && end > committed) {
                deadlines.addLast(new long[] {end, System.nanoTime() + settings.quorumWindow().toNanos()});
            }
            wake = takeParked();
        }
        for (Parked p : wake) {
            io.execute(() -> serve(p.stream(), p.fetch()));
        }
        if (onCommit) {
            log.flush(end).whenComplete((v, error) -> {
                if (error != null) {
                    Committer cm;
                    synchronized (this) {
                        cm = closed ? null : committer;
                    }
                    if (cm != null) {
                        cm.failed(error.getCause() != null ? error.getCause() : error);
                    }
                    return;
                }
                synchronized (this) {
                    ownDurable = Math.max(ownDurable, log.durableOffset());
                }
                recompute();
            });
        }
        recompute();
    }

    @Override
    public void force(long end, Committer c) {
        try {
            log.awaitDurable(end);
        } catch (RuntimeException e) {
            c.failed(e);
            return;
        }
        synchronized (this) {
            committer = c;
            ownWritten = Math.max(ownWritten, end);
            ownDurable = Math.max(ownDurable, end);
        }
        recompute();
    }

    @Override
    public void close() {
        List<Parked> waiting;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            waiting = takeParked();
            deadlines.clear();
        }
        for (Parked p : waiting) {
            p.stream().send(new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1,
                    "the leader of " + label + " closed it"));
        }
        onClose.run();
    }

    // ------------------------------------------------------------------ follower side

    /** A follower's fetch (peer event loop). */
    void onFetch(PeerStream stream, PeerMessage.Fetch f) {
        PeerMessage refusal = check(stream.remoteNode(), f);
        if (refusal != null) {
            stream.send(refusal);
            return;
        }
        boolean serveNow;
        synchronized (this) {
            if (closed) {
                serveNow = true; // answered NOT_LEADER by serve
            } else {
                serveNow = f.from() < ownWritten || f.waitMillis() == 0;
                if (!serveNow) {
                    parked.add(new Parked(stream, f, System.nanoTime() + f.waitMillis() * 1_000_000L));
                }
            }
        }
        if (serveNow) {
            io.execute(() -> serve(stream, f));
        }
    }

    /**
     * A follower's request for part of this log cache's newest snapshot (peer event loop); read on the I/O pool.
     * The snapshot files lie beside the log, in its directory.
     */
    void onSnapshotFetch(PeerStream stream, PeerMessage.SnapshotFetch f) {
        boolean isClosed;
        synchronized (this) {
            isClosed = closed;
        }
        if (isClosed) {
            stream.send(new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1, label + " was closed here"));
            return;
        }
        if (f.epoch() != epoch || !followers.contains(stream.remoteNode())) {
            stream.send(new PeerMessage.Refused(f.epoch() < epoch ? PeerMessage.Refusal.STALE_EPOCH
                    : PeerMessage.Refusal.NOT_LEADER, epoch, -1, "snapshot of " + label + " asked at epoch "
                    + f.epoch() + " of the leader at " + epoch));
            return;
        }
        int maxBytes = Math.min(f.maxBytes(), settings.fetchMaxBytes()); // the asker does not size the leader's buffers
        io.execute(() -> stream.send(SnapshotTransfer.read(log.directory(), f, maxBytes, label)));
    }

    /** A follower's progress note (peer event loop). */
    void onProgress(String node, PeerMessage.Progress p) {
        if (p.epoch() != epoch || !followers.contains(node)) {
            return;
        }
        synchronized (this) {
            long[] pos = positions.computeIfAbsent(node, n -> new long[] {0, 0});
            pos[0] = Math.max(pos[0], Math.min(p.writtenEnd(), ownWritten));
            pos[1] = Math.max(pos[1], Math.min(p.durableEnd(), pos[0]));
        }
        recompute();
    }

    /**
     * Checks a fetch against the epoch and the follower's log; records its position if it passes. Null when
     * it may be served, else the refusal to send.
     */
    private PeerMessage check(String node, PeerMessage.Fetch f) {
        if (!followers.contains(node)) {
            return new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1,
                    "node " + node + " is no replica of " + label);
        }
        if (f.epoch() < epoch) {
            return new PeerMessage.Refused(PeerMessage.Refusal.STALE_EPOCH, epoch, -1,
                    "epoch " + f.epoch() + " of " + label + " is over; the leader is at epoch " + epoch);
        }
        if (f.epoch() > epoch) {
            return new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1,
                    "this node leads " + label + " at epoch " + epoch + " only; epoch " + f.epoch() + " is newer");
        }
        long tail;
        long base;
        synchronized (this) {
            if (closed) {
                return new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1, label + " was closed here");
            }
            tail = ownWritten;
            base = log.baseOffset();
        }
        if (f.lastEpoch() >= 0 && f.lastEpoch() < epoch) {
            long end = log.endOffsetOf(f.lastEpoch());
            if (end >= 0 && end < f.from()) {
                return new PeerMessage.Refused(PeerMessage.Refusal.DIVERGED, epoch, end, "records of epoch "
                        + f.lastEpoch() + " end at offset " + end + " on the leader of " + label);
            }
        }
        if (f.from() > tail) {
            return new PeerMessage.Refused(PeerMessage.Refusal.DIVERGED, epoch, tail,
                    "the follower's log of " + label + " is past the leader's end " + tail);
        }
        if (f.from() < base) {
            return new PeerMessage.Refused(PeerMessage.Refusal.TRIMMED, epoch, base,
                    "the leader's log of " + label + " starts at " + base);
        }
        synchronized (this) {
            long[] pos = positions.computeIfAbsent(node, n -> new long[] {0, 0});
            pos[0] = Math.max(pos[0], f.from());
            pos[1] = Math.max(pos[1], Math.min(f.durableEnd(), f.from()));
        }
        recompute();
        return null;
    }

    /** Reads and sends what the fetch asks for (replication executor). */
    private void serve(PeerStream stream, PeerMessage.Fetch f) {
        long hwm;
        boolean isClosed;
        synchronized (this) {
            hwm = committed;
            isClosed = closed;
        }
        if (isClosed) {
            stream.send(new PeerMessage.Refused(PeerMessage.Refusal.NOT_LEADER, epoch, -1, label + " was closed here"));
            return;
        }
        PeerMessage answer = read(log, f.from(), Math.min(f.maxBytes(), settings.fetchMaxBytes()), epoch, hwm, -1,
                label);
        if (answer instanceof PeerMessage.Records r) {
            metrics.sent(r.bytes().length);
        }
        stream.send(answer);
    }

    /**
     * Records of {@code log} from {@code from}, all of one epoch (a follower records each epoch's start as it
     * appends), as a {@code records} answer; or the refusal when they cannot be read. With
     * {@code onlyEpoch >= 0}, only records of that epoch (none when {@code from} is in another).
     */
    static PeerMessage read(SegmentedLog log, long from, int maxBytes, long epoch, long hwm, long onlyEpoch,
            String label) {
        long tail = log.tailOffset();
        if (from >= tail) {
            return new PeerMessage.Records(epoch, from, -1, hwm, tail, 0, new byte[0]);
        }
        long recordsEpoch = log.epochOf(from).orElse(-1);
        if (onlyEpoch >= 0 && recordsEpoch != onlyEpoch) {
            return new PeerMessage.Records(epoch, from, -1, hwm, tail, 0, new byte[0]);
        }
        long until = tail;
        for (EpochEntry e : log.epochHistory()) {
            if (e.startOffset() > from) {
                until = Math.min(until, e.startOffset());
                break;
            }
        }
        int max = (int) Math.min(FETCH_MAX_RECORDS, until - from);
        try {
            RawReadResult r = log.readRaw(from, max, maxBytes);
            if (r instanceof RawReadResult.Chunk chunk) {
                return new PeerMessage.Records(epoch, from, recordsEpoch, hwm, tail, chunk.records(), chunk.bytes());
            }
            if (r instanceof ReadResult.Trimmed t) {
                return new PeerMessage.Refused(PeerMessage.Refusal.TRIMMED, epoch, t.oldest(),
                        "the log of " + label + " starts at " + t.oldest());
            }
            return new PeerMessage.Refused(PeerMessage.Refusal.FAILED, epoch, -1,
                    "records of " + label + " from " + from + " are damaged here: " + r);
        } catch (StorageException e) {
            LOG.warn("cannot read the log of {} at {} for a follower: {}", label, from, e.getMessage());
            return new PeerMessage.Refused(PeerMessage.Refusal.FAILED, epoch, -1,
                    "cannot read the log of " + label + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ commit

    /** Recomputes the committed end and tells the writer when it grew. Any thread; never under the monitor. */
    private void recompute() {
        long newCommitted;
        Committer cm;
        synchronized (this) {
            if (closed || committer == null) {
                return;
            }
            long candidate = consistency == Consistency.LEADER ? ownDurable : majorityPosition();
            candidate = Math.min(candidate, Math.min(ownWritten, sealedAt));
            if (candidate <= committed) {
                return;
            }
            committed = candidate;
            while (!deadlines.isEmpty() && deadlines.peekFirst()[0] <= committed) {
                deadlines.pollFirst();
            }
            newCommitted = committed;
            cm = committer;
        }
        cm.committed(newCommitted);
    }

    /** The highest position a majority of the replicas holds (under the monitor). */
    private long majorityPosition() {
        long[] held = new long[followers.size() + 1];
        held[0] = ownDurable;
        int i = 1;
        for (String f : followers) {
            long[] pos = positions.get(f);
            held[i++] = pos == null ? 0 : (onCommit ? pos[1] : pos[0]);
        }
        Arrays.sort(held);
        return held[held.length - majority];
    }

    /**
     * Answers parked fetches whose long poll ran out (with no records, carrying the watermark) and refuses
     * quorum batches whose window ran out. Ticker thread.
     */
    void tick(long nowNanos) {
        List<Parked> expired = null;
        long refuseTo = -1;
        Committer cm;
        synchronized (this) {
            if (closed) {
                return;
            }
            for (int i = parked.size() - 1; i >= 0; i--) {
                if (parked.get(i).deadlineNanos() <= nowNanos) {
                    if (expired == null) {
                        expired = new ArrayList<>();
                    }
                    expired.add(parked.remove(i));
                }
            }
            while (!deadlines.isEmpty() && deadlines.peekFirst()[1] <= nowNanos) {
                refuseTo = deadlines.pollFirst()[0];
            }
            cm = committer;
        }
        if (expired != null) {
            for (Parked p : expired) {
                io.execute(() -> serve(p.stream(), p.fetch()));
            }
        }
        if (refuseTo >= 0 && cm != null) {
            metrics.quorumTimeout();
            cm.refused(refuseTo, FelixError.of(ErrorCode.QUORUM_TIMEOUT, settings.quorumTimeoutText()));
        }
    }

    private List<Parked> takeParked() {
        if (parked.isEmpty()) {
            return List.of();
        }
        List<Parked> all = new ArrayList<>(parked);
        parked.clear();
        return all;
    }

    @Override
    public String toString() {
        return "ReplicatedGate[" + label + " epoch " + epoch + " " + consistency.wireName() + "]";
    }
}
