package dev.felix.cluster.metadata;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata group: applies each committed {@link Command} to the current
 * {@link ClusterState}, answers heartbeats (read-only queries, recorded in {@link Liveness}, never in the log),
 * and writes and loads snapshots.
 *
 * <p><b>Threads.</b> Ratis applies entries and takes snapshots on its state-machine updater thread, one at a
 * time, in log order; that thread is the only writer of {@link #state()}, which it replaces atomically (a
 * volatile field holding an immutable value), so readers on any thread never lock. Queries arrive on gRPC
 * threads and touch only {@link Liveness}. {@code onChange} is called on the updater thread after each change
 * and must only hand the state on.
 *
 * <p><b>Snapshots</b> are JSON ({@link Json#encodeState}) in Ratis' state-machine directory,
 * {@code snapshot.<term>_<index>} with an MD5 file beside it, written through a temporary file and a rename.
 * At start Ratis loads the newest one and replays the log after it; a follower that is too far behind gets the
 * leader's snapshot file installed and reloads it ({@link #reinitialize()}).
 */
final class MetadataStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final String localNodeId;
    private final Liveness liveness;
    private final Consumer<ClusterState> onChange;
    private final LongAdder snapshots = new LongAdder();
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();
    private volatile ClusterState state = ClusterState.EMPTY;
    private volatile long appliedIndex = -1;
    /** Set while a test holds applying ({@link #holdApplying()}). */
    private volatile java.util.concurrent.CountDownLatch held;
    private volatile long loadedSnapshotIndex = -1;

    MetadataStateMachine(String localNodeId, Liveness liveness, Consumer<ClusterState> onChange) {
        this.localNodeId = localNodeId;
        this.liveness = liveness;
        this.onChange = onChange;
    }

    ClusterState state() {
        return state;
    }

    /** Index of the last log entry applied here (commands, configuration and leader entries alike). */
    long appliedIndex() {
        return appliedIndex;
    }

    /** Index of the snapshot loaded at the last start or install; -1 if none. */
    long loadedSnapshotIndex() {
        return loadedSnapshotIndex;
    }

    long snapshotsTaken() {
        return snapshots.sum();
    }

    /**
     * Fault injection for tests ({@link RaftMetadata#holdApplying()}): the updater thread waits before applying the
     * next entry until the returned handle is closed, as it would behind a long pause. The log still receives and
     * acknowledges entries; only applying them waits.
     */
    AutoCloseable holdApplying() {
        java.util.concurrent.CountDownLatch latch = new java.util.concurrent.CountDownLatch(1);
        held = latch;
        return () -> release(latch);
    }

    /** Lets the updater thread go on (a held node being closed must not wait for ever: Ratis joins the thread). */
    void releaseHold() {
        java.util.concurrent.CountDownLatch latch = held;
        if (latch != null) {
            release(latch);
        }
    }

    private void release(java.util.concurrent.CountDownLatch latch) {
        synchronized (this) {
            if (held == latch) {
                held = null; // a later hold stays in place
            }
        }
        latch.countDown();
    }

    private void awaitRelease() {
        java.util.concurrent.CountDownLatch latch = held;
        if (latch == null) {
            return;
        }
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // apply this entry, and let the interrupt be seen after it
        }
    }

    /** Completes once the entry at {@code index} is applied here. Completed on the updater thread. */
    CompletableFuture<Void> awaitApplied(long index) {
        synchronized (waiters) {
            if (appliedIndex >= index) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            waiters.computeIfAbsent(index, i -> new ArrayList<>()).add(f);
            return f;
        }
    }

    private void applied(long index) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (waiters) {
            if (index <= appliedIndex) {
                return;
            }
            appliedIndex = index;
            Map<Long, List<CompletableFuture<Void>>> head = waiters.headMap(index, true);
            head.values().forEach(done::addAll);
            head.clear();
        }
        done.forEach(f -> f.complete(null));
    }

    // ------------------------------------------------------------------ Ratis

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        load(storage.loadLatestSnapshot());
    }

    @Override
    public void reinitialize() throws IOException {
        load(storage.loadLatestSnapshot());
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        awaitRelease();
        LogEntryProto entry = trx.getLogEntry();
        long index = entry.getIndex();
        byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
        Outcome outcome;
        try {
            Command command = Json.decodeCommand(data);
            ClusterState.Applied a = state.apply(command, index, entry.getTerm());
            outcome = a.outcome();
            if (a.state() != state) {
                state = a.state();
                onChange.accept(state);
            }
        } catch (RuntimeException e) {
            // Deterministic on every node: the same bytes fail the same way everywhere.
            LOG.warn("metadata log entry {} cannot be applied, skipped: {}", index, e.getMessage());
            outcome = Outcome.refused(dev.felix.core.ErrorCode.BAD_REQUEST, "the command cannot be applied: "
                    + e.getMessage());
        }
        updateLastAppliedTermIndex(entry.getTerm(), index);
        applied(index);
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(Json.encode(outcome))));
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        super.notifyTermIndexUpdated(term, index);
        applied(index);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            Heartbeat h = Json.decodeHeartbeat(request.getContent().toByteArray());
            liveness.record(h);
            return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(
                    Json.encode(new Json.HeartbeatReply(localNodeId, appliedIndex)))));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("bad metadata query: "
                    + e.getMessage(), e));
        }
    }

    @Override
    public long takeSnapshot() throws IOException {
        ClusterState s = state;
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
        if (latest != null && latest.getIndex() >= last.getIndex()) {
            return latest.getIndex();
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Path target = file.toPath();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        byte[] json = Json.encodeState(s, last.getTerm(), last.getIndex());
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(json);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(target, md5), last));
        snapshots.increment();
        LOG.info("metadata snapshot written at index {} (term {}): {} nodes, {} streams, {} caches, {} placements",
                last.getIndex(), last.getTerm(), s.nodes().size(), s.streams().size(), s.caches().size(),
                s.placements().size());
        return last.getIndex();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        if (!Files.exists(file)) {
            LOG.warn("metadata snapshot {} is listed but missing; starting from the log", file);
            return;
        }
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), md5);
        }
        Json.StateDocument doc;
        try {
            doc = Json.decodeState(Files.readAllBytes(file));
        } catch (IllegalArgumentException e) {
            throw new IOException("metadata snapshot " + file + " is unreadable: " + e.getMessage(), e);
        }
        TermIndex at = SimpleStateMachineStorage.getTermIndexFromSnapshotFile(file.toFile());
        state = doc.state();
        TermIndex before = getLastAppliedTermIndex();
        if (before == null || at.compareTo(before) > 0) {
            setLastAppliedTermIndex(at);
        }
        loadedSnapshotIndex = at.getIndex();
        applied(at.getIndex());
        onChange.accept(state);
        LOG.info("metadata snapshot loaded from {} (index {}): {} nodes, {} streams, {} caches", file, at.getIndex(),
                state.nodes().size(), state.streams().size(), state.caches().size());
    }
}
