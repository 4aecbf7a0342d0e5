package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.writer.CommitGate;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.core.writer.HistoryRead;
import dev.felix.core.writer.LogWriter;
import dev.felix.core.writer.WriterInbox;
import dev.felix.core.writer.WriterLoop;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One named cache: {@code put / get / delete} with TTLs and a capacity, a gap-free change sequence, and
 * watches that start from a consistent snapshot or resume from an offset.
 *
 * <p><b>Thread-safety:</b> every public method is thread-safe. Futures complete on the cache's writer
 * thread: attach anything slow with the {@code *Async} variants.
 *
 * <h2>Structure</h2>
 * The cache is three parts around one single writer ({@link WriterLoop}): its {@link CacheStore} (entries,
 * TTL, LRU: decides every change), its {@link LogWriter} (offsets, log append, commit gate — the same
 * sequencer a durable shard uses) and its {@link WatchFanout} (watches). Other threads only enqueue:
 * mutations into the bounded writer queue ({@link CacheConfig#writerQueue()}; full = {@code overloaded}),
 * everything else as writer tasks. Reads ({@link #get}) take no lock: they look the key up in the
 * published view and record the access in a lossy buffer the writer drains to keep its LRU order.
 *
 * <h2>Path of a put</h2>
 * The writer applies queued mutations to the store, which stages each decided change (put, and any
 * eviction it causes) into the batch being formed; at the end of the pass the batch goes to the
 * {@link LogWriter}: appended (log cache) and, once the {@link CommitGate} passes (its fsync under
 * {@code on_commit}; at once otherwise), made visible — the view, the change ring, every live watch — and
 * acknowledged, in offset order. So nobody ever sees a change a crash could take back (under
 * {@code on_commit}). Offsets belong to an {@linkplain #incarnation() incarnation}: a memory cache starts a
 * new one whenever it is created; a log cache keeps its incarnation across restarts unless an unclean stop
 * under a lossy fsync policy may have lost visible changes (see {@link CacheMeta}).
 *
 * <h2>Watch</h2>
 * See {@link #watch(String, Long, Long, WatchListener)}. Without a resume offset the watcher gets a snapshot
 * at the committed offset N (taken on the writer, so it is exactly the state after the changes below N),
 * then every change from N on. With an offset M it gets exactly the changes from M on, replayed from the
 * change ring (memory cache) or the log (log cache) at the pace its queue allows, then live.
 *
 * <h2>Log backing</h2>
 * See {@link CacheLog}: every change is a log record at the same offset; every
 * {@link CacheConfig#snapshotEveryChanges()} changes a snapshot of the visible state is written on the I/O
 * executor and the log is trimmed. The log is opened and replayed lazily, on first use ({@link #load()}). A
 * storage failure fails the affected operations, ends every watch (resumable) and unloads the cache; the next
 * use reloads it from disk.
 */
public final class Cache {

    private static final Logger LOG = LoggerFactory.getLogger(Cache.class);

    /** What {@link #delete} returns when the key was absent: nothing changed, no offset was used. */
    public static final long NO_CHANGE = -1;
    /** Longest key, in UTF-16 characters. */
    public static final int MAX_KEY_LENGTH = 1024;

    /** Mutations one writer run handles before yielding its thread to other caches. */
    static final int MAX_MUTATIONS_PER_RUN = 4096;
    /** Changes of one log batch at most. */
    static final int MAX_APPEND_RECORDS = 1024;
    /** Change bytes after which a log batch is appended. */
    static final long MAX_APPEND_BYTES = 1L << 20;
    /** Appended batches waiting at the commit gate before the writer stops taking mutations. */
    static final int MAX_FLUSH_BACKLOG = 64;

    private static final SecureRandom RANDOM = new SecureRandom();

    /** What an inbox item asks for. */
    private enum Kind {
        PUT, DELETE,
        /** No change: completes once everything queued before it is visible (and loads the cache). */
        BARRIER,
        /** No change: completes once the cache is loaded, whatever waits at the commit gate. */
        LOAD
    }

    /** A put, delete or barrier waiting for the writer, in arrival order. */
    private record Mutation(Kind kind, String key, byte[] value, long ttlMillis, CompletableFuture<Long> future,
            long bytes) {
    }

    /** A future to complete with {@code value} once everything staged before it is visible. */
    private record Ack(CompletableFuture<Long> future, long value) {
    }

    /** Staged changes: appended together, committed together. */
    static final class Batch {
        final ArrayList<Change> changes = new ArrayList<>();
        final ArrayList<EntryTable.Node> nodes = new ArrayList<>();
        final ArrayList<Ack> acks = new ArrayList<>();
        long bytes;

        boolean isEmpty() {
            return changes.isEmpty();
        }
    }

    /** Everything that exists while the cache is loaded; replaced wholesale by a reload. Writer-owned. */
    static final class State {
        final CacheStore store;
        final ChangeRing ring;
        private final LogWriter<Batch> writer;
        long lastSnapshot;
        boolean dead;
        Batch batch = new Batch();
        /** The snapshot being written, or null. */
        CompletableFuture<Void> compaction;
        final List<CompletableFuture<Long>> compactWaiters = new ArrayList<>();
        /** Changes the log held past its committed end at load, staged; published as the gate commits them. */
        final java.util.ArrayDeque<CacheLog.Uncommitted> uncommitted = new java.util.ArrayDeque<>();
        /** Answers to complete once {@link #uncommitted} is visible (nothing else was waiting behind it). */
        final List<Ack> afterRecovered = new ArrayList<>();
        /**
         * Snapshot watches asked for while {@link #uncommitted} is not all visible: a snapshot before it could hold
         * values its changes (perhaps acknowledged by the previous leader) replaced, so it is taken after it.
         */
        final List<PendingSnapshotWatch> snapshotsAfterRecovered = new ArrayList<>();

        State(CacheStore store, ChangeRing ring, LogWriter<Batch> writer) {
            this.store = store;
            this.ring = ring;
            this.writer = writer;
        }

        /** Every change below this is committed and visible. */
        long visible() {
            return writer.committed();
        }
    }

    /** A snapshot watch waiting for the inherited uncommitted tail to become visible. */
    private record PendingSnapshotWatch(Watcher watcher, CompletableFuture<CacheWatch> result) {
    }

    private final CacheName name;
    private final String label;
    private final CacheConfig config;
    private final Executor io;
    private final Clock clock;
    /** Null for a memory cache. */
    private final CacheLog storage;
    /** What the log is, for the gate factory. */
    private final LogRef ref;
    private final GateFactory gates;
    private final boolean onCommit;
    private final LongSupplier watchIds;
    private final CacheMetrics metrics = new CacheMetrics();
    private final WriterLoop loop;
    private final WriterInbox<Mutation> inbox;
    private final LogWriter<Batch> writer;
    private final WatchFanout watches;
    private final ReadBuffer reads = new ReadBuffer();
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean closing;

    // Published by the writer for other threads.
    /** The loaded state; null while not loaded (log cache before first use, after a failure, after close). */
    private volatile State state;
    private volatile long incarnation;
    private volatile long publishedNext = -1;
    private volatile long publishedOldest = -1;
    /**
     * Keys the log's uncommitted tail touched when it was loaded (a replica that took the cache over), each with the
     * offset of the tail's last change to it; null when there is no such tail, or once it is all visible. The
     * previous leader may have acknowledged those changes, so such a key is not read until its change is visible:
     * reading the value before it would return what an acknowledged write already replaced.
     */
    private volatile Map<String, Long> inheritedTail;
    /** Earliest expiry among entries, so a periodic sweep of an idle cache costs one comparison. */
    private volatile long nextExpiry = CacheEntry.NEVER;
    private volatile boolean backlogFull;

    // Writer-owned.
    private FelixError loadFailure;
    /** Why the last load was refused by the gate (this node does not lead the cache now); not remembered. */
    private FelixError gateRefusal;
    private boolean incarnationKnown;
    private boolean shutDown;

    /**
     * @param storage  the cache's log, for a {@link CacheConfig.Backing#LOG} cache; null for memory
     * @param executor runs the writer (shared by many caches)
     * @param io       writes snapshots (blocking file I/O)
     * @param clock    time for TTLs
     * @param watchIds source of node-unique watch ids
     */
    Cache(CacheName name, CacheConfig config, CacheLog storage, Executor executor, Executor io, Clock clock,
            LongSupplier watchIds) {
        this(name, config, storage, executor, io, clock, watchIds, 0, GateFactory.LOCAL);
    }

    /**
     * @param uid   the cache's uid from metadata (names its log to {@code gates})
     * @param gates chooses the commit gate when the log opens; may refuse while this node does not lead the cache
     */
    Cache(CacheName name, CacheConfig config, CacheLog storage, Executor executor, Executor io, Clock clock,
            LongSupplier watchIds, long uid, GateFactory gates) {
        if ((config.backing() == CacheConfig.Backing.LOG) != (storage != null)) {
            throw new IllegalArgumentException("a " + config.backing().wireName() + " cache "
                    + (storage == null ? "needs" : "takes no") + " log");
        }
        this.name = name;
        this.label = name.toString();
        this.config = config;
        this.storage = storage;
        this.onCommit = storage != null && config.fsync() == dev.felix.core.StreamConfig.Fsync.ON_COMMIT;
        this.io = io;
        this.clock = clock;
        this.watchIds = watchIds;
        this.ref = new LogRef(LogRef.Kind.CACHE, name.toString(), uid, 0);
        this.gates = gates;
        this.loop = new WriterLoop("cache " + label, executor, false);
        this.inbox = new WriterInbox<>(config.writerQueue(), new WriterInbox.Weigher<>() {
            @Override
            public int events(Mutation m) {
                return m.kind == Kind.BARRIER || m.kind == Kind.LOAD ? 0 : 1;
            }

            @Override
            public long bytes(Mutation m) {
                return m.bytes;
            }
        });
        this.writer = new LogWriter<>("cache " + label, loop, new Committed(), MAX_FLUSH_BACKLOG,
                storage == null ? () -> 0L : storage::nowMicros);
        this.watches = new WatchFanout(this, label, metrics);
        loop.start(new Passes());
        if (storage == null) {
            // A memory cache has nothing to load: it exists from here on, in a fresh incarnation.
            writer.reset(null, 0, CommitGate.immediate());
            this.incarnation = newIncarnation();
            this.incarnationKnown = true;
            this.state = newState(0);
            this.publishedNext = 0;
            this.publishedOldest = 0;
        }
    }

    public CacheName name() {
        return name;
    }

    /** Whether this instance was closed (dropped, released to another node or reopened, or the node stopped). */
    public boolean closed() {
        return closing;
    }

    public CacheConfig config() {
        return config;
    }

    public CacheMetrics metrics() {
        return metrics;
    }

    /**
     * The incarnation of the change sequence (0 while a log cache has not been loaded yet); offsets of
     * another incarnation mean nothing here.
     */
    public long incarnation() {
        return incarnation;
    }

    /** How many watches the cache is feeding now (a volatile read; any thread). */
    public int watchCount() {
        return watches.count();
    }

    /** A moment's view of offsets and size; never loads. */
    public CacheInfo info() {
        State s = state;
        if (s == null) {
            return new CacheInfo(false, -1, -1, -1, incarnation, watches.count());
        }
        return new CacheInfo(true, publishedOldest, publishedNext, s.store.visibleSize(), incarnation,
                watches.count());
    }

    /**
     * Loads the cache if it is not loaded (a log cache opens its log, restores its newest usable snapshot and
     * replays the rest; see {@link CacheLog}) and completes with its info once every put and delete queued
     * before this call is visible. Fails with {@code corruption} or {@code unavailable} when the cache cannot
     * be loaded (a load failure is remembered: later calls fail the same way without touching the disk again).
     */
    public CompletableFuture<CacheInfo> load() {
        CompletableFuture<Long> barrier = new CompletableFuture<>();
        if (closing) {
            barrier.completeExceptionally(closedError().toException());
        } else {
            inbox.offer(new Mutation(Kind.BARRIER, null, null, 0, barrier, 0)); // weighs nothing: always taken
            loop.schedule();
        }
        return barrier.thenApply(v -> info());
    }

    /**
     * Loads the cache if it is not loaded and completes with its info, without waiting for queued or uncommitted
     * writes (a replicated cache's writes may wait seconds for a majority; reads of what is visible must not). For a
     * reader on a thread that must not block: {@link #get} after this never loads. Fails as {@link #load()}.
     */
    public CompletableFuture<CacheInfo> loaded() {
        if (state != null) {
            return CompletableFuture.completedFuture(info());
        }
        CompletableFuture<Long> done = new CompletableFuture<>();
        if (closing) {
            done.completeExceptionally(closedError().toException());
        } else {
            inbox.offer(new Mutation(Kind.LOAD, null, null, 0, done, 0)); // weighs nothing: always taken
            loop.schedule();
        }
        return done.thenApply(v -> info());
    }

    // ------------------------------------------------------------------ mutations (any thread)

    /**
     * Sets {@code key} to {@code value}, restarting its TTL. Completes with the change's offset once the
     * change is visible (log cache: appended, and under {@code on_commit} durable); exceptionally with a
     * {@link FelixException}: {@code bad_request} (invalid key, value or TTL), {@code overloaded} (writer
     * queue full; retry later), {@code unavailable} / {@code corruption} (closed, or storage failed).
     *
     * <p><b>Ownership:</b> the cache keeps {@code value} as is; the caller must not modify it afterwards.
     *
     * @param ttl time to live, at least 1 ms; null = the cache's default TTL (which may be none)
     */
    public CompletableFuture<Long> put(String key, byte[] value, Duration ttl) {
        FelixError bad = checkKey(key);
        if (bad == null && value == null) {
            bad = FelixError.of(ErrorCode.BAD_REQUEST, "value must not be null");
        }
        if (bad == null && value.length > config.maxValueBytes()) {
            bad = FelixError.of(ErrorCode.BAD_REQUEST, "value of " + value.length + " bytes exceeds max_value_bytes "
                    + config.maxValueBytes() + " of cache " + label);
        }
        Duration t = ttl != null ? ttl : config.defaultTtl();
        long ttlMillis = 0;
        if (bad == null && t != null) {
            if (t.isZero() || t.isNegative()) {
                bad = FelixError.of(ErrorCode.BAD_REQUEST, "ttl must be positive, was " + t + " (use delete to remove"
                        + " a key)");
            } else {
                ttlMillis = saturatedMillis(t);
            }
        }
        if (bad != null) {
            return CompletableFuture.failedFuture(bad.toException());
        }
        return submit(new Mutation(Kind.PUT, key, value, ttlMillis, new CompletableFuture<>(),
                value.length + 2L * key.length()));
    }

    /**
     * Deletes {@code key}. Completes with the change's offset once the deletion is visible, or with
     * {@link #NO_CHANGE} when the key was absent or had already expired (an expired key's removal is still
     * recorded, as an {@link Change.Op#EXPIRE} change). Fails as {@link #put}.
     */
    public CompletableFuture<Long> delete(String key) {
        FelixError bad = checkKey(key);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad.toException());
        }
        return submit(new Mutation(Kind.DELETE, key, null, 0, new CompletableFuture<>(), 2L * key.length()));
    }

    /**
     * The value of {@code key}, if it is present and not expired; lock-free. Sees exactly the visible
     * changes. An expired entry reads as absent and its removal is requested from the writer.
     *
     * <p>A log cache that is not loaded yet is loaded first, and this call <b>blocks</b> until then: a caller
     * on a thread that must not block (an event loop) calls {@link #load()} first.
     *
     * <p><b>Ownership:</b> the returned array is the cache's own; never modify it.
     *
     * <p>A replica that took the cache over holds the previous leader's last changes uncommitted until a majority
     * holds them; they may have been acknowledged. Until its change is visible, a key such a change touched is
     * refused ({@code unavailable}, retry) rather than read as the value that change replaced.
     *
     * @throws FelixException {@code bad_request} for an invalid key; {@code unavailable} or {@code corruption}
     *                        when the cache is closed or cannot be loaded; {@code unavailable} for a key of the
     *                        inherited uncommitted tail (above)
     */
    public Optional<byte[]> get(String key) throws FelixException {
        FelixError bad = checkKey(key);
        if (bad != null) {
            throw bad.toException();
        }
        if (closing) {
            throw closedError().toException();
        }
        State s = state;
        if (s == null) {
            s = awaitLoaded();
        }
        checkNotInInheritedTail(key);
        EntryTable.Node n = s.store.read(key);
        if (n == null) {
            metrics.misses.increment();
            return Optional.empty();
        }
        if (n.expiresAt != CacheEntry.NEVER && n.expiredAt(clock.millis())) {
            metrics.misses.increment();
            requestExpire(n);
            return Optional.empty();
        }
        metrics.hits.increment();
        if (reads.record(n)) {
            requestDrain();
        }
        return Optional.of(n.value);
    }

    /** Refuses a read of a key whose last change is in the inherited uncommitted tail and not yet visible. */
    private void checkNotInInheritedTail(String key) throws FelixException {
        Map<String, Long> tail = inheritedTail;
        if (tail == null) {
            return;
        }
        Long last = tail.get(key);
        if (last != null && last >= publishedNext) {
            throw FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " is being taken over: key " + key
                    + " has a change (offset " + last + ") from the previous leader that may have been acknowledged"
                    + " and is not committed here yet; it is read once a majority holds it; retry").toException();
        }
    }

    /**
     * Removes every entry whose TTL has run out (as {@link Change.Op#EXPIRE} changes, in expiry order).
     * Completes with how many were removed, once those removals are visible. The owner calls this
     * periodically; {@link Caches} does on its timer.
     */
    public CompletableFuture<Long> sweep() {
        CompletableFuture<Long> result = new CompletableFuture<>();
        loop.post(() -> sweepPass(result, 0));
        return result;
    }

    /**
     * Log caches: writes a snapshot of the visible state now and compacts the log (see {@link CacheLog}).
     * Completes with the snapshot's offset (an unchanged cache keeps its last snapshot and completes with its
     * offset). Fails with {@code bad_request} for a memory cache.
     */
    public CompletableFuture<Long> compact() {
        CompletableFuture<Long> result = new CompletableFuture<>();
        if (storage == null) {
            result.completeExceptionally(FelixError.of(ErrorCode.BAD_REQUEST, "cache " + label
                    + " is a memory cache: it keeps no log to compact").toException());
            return result;
        }
        loop.post(() -> {
            if (!ensureLoaded()) {
                result.completeExceptionally(failureNow().toException());
                return;
            }
            State s = state;
            commitBatch(s);
            if (s.dead) {
                result.completeExceptionally(failureNow().toException());
                return;
            }
            if (s.compaction == null && s.visible() == s.lastSnapshot) {
                result.complete(s.lastSnapshot);
                return;
            }
            s.compactWaiters.add(result);
            if (s.compaction == null) {
                startCompaction(s);
            }
        });
        return result;
    }

    // ------------------------------------------------------------------ watch (any thread)

    /** {@link #watch(String, Long, Long, WatchListener)} without an incarnation check. */
    public CompletableFuture<CacheWatch> watch(String prefix, Long fromOffset, WatchListener listener) {
        return watch(prefix, fromOffset, null, listener);
    }

    /**
     * Starts a watch of the keys starting with {@code prefix}.
     *
     * <ul>
     *   <li>{@code fromOffset == null}: the watch delivers a consistent snapshot at the visible offset N
     *       ({@link SnapshotChunk}s), then every change from N on. A replica that took the cache over takes it only
     *       once the changes it inherited uncommitted are visible (the previous leader may have acknowledged them;
     *       see {@link #get}): until then the watch waits.</li>
     *   <li>{@code fromOffset == M}: the watch delivers exactly the changes from M on. Fails with
     *       {@code cursor_too_old} (the error's offset is the oldest retained) if M is no longer retained — in
     *       the change ring for a memory cache, in the log for a log cache — or if {@code incarnation} is given
     *       and is not the cache's; the watcher then takes a fresh snapshot. Fails with
     *       {@code cursor_in_future} (naming the next offset) if M is past it.</li>
     * </ul>
     * Changes outside the prefix still use offsets; a filtered watch skips them, so its offsets have holes
     * but never gaps: every change of the prefix from the start offset on is delivered. A watch that falls a
     * queue's worth behind is ended with {@link WatchEnded} (see {@link CacheWatch}).
     *
     * @param prefix      key prefix; null or empty = every key
     * @param fromOffset  resume offset, or null for a snapshot
     * @param incarnation the incarnation {@code fromOffset} belongs to ({@link CacheWatch#incarnation()}), or
     *                    null to skip the check
     * @param listener    told when there is something to poll (on the writer thread; must not block)
     */
    public CompletableFuture<CacheWatch> watch(String prefix, Long fromOffset, Long incarnation,
            WatchListener listener) {
        return watch(prefix, fromOffset, incarnation, config.watcherQueue(), listener);
    }

    /**
     * As {@link #watch(String, Long, Long, WatchListener)}, with this watch's own queue limits instead of the
     * cache's {@link CacheConfig#watcherQueue()} (a watcher that asked for a smaller queue).
     */
    public CompletableFuture<CacheWatch> watch(String prefix, Long fromOffset, Long incarnation, QueueLimits limits,
            WatchListener listener) {
        if (listener == null) {
            return CompletableFuture.failedFuture(
                    FelixError.of(ErrorCode.BAD_REQUEST, "a watch needs a listener").toException());
        }
        if (fromOffset != null && fromOffset < 0) {
            return CompletableFuture.failedFuture(
                    FelixError.of(ErrorCode.BAD_REQUEST, "resume offset must be >= 0, was " + fromOffset)
                            .toException());
        }
        String p = prefix == null || prefix.isEmpty() ? null : prefix;
        CompletableFuture<CacheWatch> result = new CompletableFuture<>();
        Watcher[] holder = new Watcher[1];
        WatcherQueue queue = new WatcherQueue(limits, () -> loop.post(() -> watches.onSpace(state, holder[0])));
        Watcher w = new Watcher(watchIds.getAsLong(), p, listener, queue);
        holder[0] = w;
        loop.post(() -> {
            if (!ensureLoaded()) {
                result.completeExceptionally(failureNow().toException());
                return;
            }
            if (fromOffset == null && !state.uncommitted.isEmpty()) {
                state.snapshotsAfterRecovered.add(new PendingSnapshotWatch(w, result));
                return;
            }
            watches.register(state, w, fromOffset, incarnation, this.incarnation, result);
        });
        return result;
    }

    void unwatch(Watcher w) {
        loop.post(() -> watches.remove(w));
    }

    // ------------------------------------------------------------------ lifecycle (any thread)

    /**
     * Closes the cache: appends and flushes what is staged (acknowledging it), ends every watch with
     * {@code unavailable} (resumable), fails queued mutations with {@code unavailable}, closes the log and
     * records a clean shutdown. Completes once that has run and any snapshot being written is finished.
     * Idempotent.
     */
    public CompletableFuture<Void> close() {
        return close(null);
    }

    /** As {@link #close()}; watches end with {@code reason} (a dropped cache: {@code not_found}) if given. */
    public CompletableFuture<Void> close(FelixError reason) {
        closing = true;
        loop.post(() -> {
            CompletableFuture<Void> pendingSnapshot = null;
            try {
                pendingSnapshot = shutdown(reason);
            } finally {
                if (pendingSnapshot == null) {
                    closed.complete(null);
                } else {
                    pendingSnapshot.whenComplete((v, e) -> closed.complete(null));
                }
            }
        });
        return closed;
    }

    /** Whether the cache's state is in memory. */
    boolean isLoaded() {
        return state != null;
    }

    /** Sweeps only if an entry is due (cheap when nothing is): for a periodic timer. */
    void sweepIfDue() {
        if (!closing && state != null && nextExpiry <= clock.millis()) {
            sweep();
        }
    }

    /** For tests: the log's segment count (log caches, loaded). */
    int logSegments() {
        return storage.segmentCount();
    }

    /** For tests: the cache's log (log caches). */
    CacheLog storage() {
        return storage;
    }

    /** For tests: the log's durable offset (log caches, loaded). */
    long durableOffset() {
        return storage.durableOffset();
    }

    /** For tests: the cache's log directory. */
    java.nio.file.Path directory() {
        return storage == null ? null : storage.directory();
    }

    // ------------------------------------------------------------------ for WatchFanout (writer)

    void post(Runnable task) {
        loop.post(task);
    }

    boolean hasLog() {
        return storage != null;
    }

    HistoryRead readHistory(long from, long until, int maxRecords, long maxBytes) {
        return writer.readHistory(from, until, maxRecords, maxBytes);
    }

    /** Oldest change a watch may resume from. */
    long oldest(State s) {
        long ringOldest = s.ring.oldest(s.visible());
        if (storage == null) {
            return ringOldest;
        }
        long base = storage.baseOffset();
        return base < 0 ? ringOldest : Math.min(ringOldest, base);
    }

    // ------------------------------------------------------------------ writer

    private CompletableFuture<Long> submit(Mutation m) {
        if (closing) {
            m.future.completeExceptionally(closedError().toException());
            return m.future;
        }
        if (!inbox.offer(m)) {
            metrics.rejected.increment();
            QueueLimits limits = config.writerQueue();
            m.future.completeExceptionally(FelixError.of(ErrorCode.OVERLOADED, "the writer queue of cache " + label
                    + " is full (" + limits.events() + " mutations / " + limits.bytes() + " bytes); retry later")
                    .toException());
            return m.future;
        }
        loop.schedule();
        return m.future;
    }

    /** The writer's passes: apply queued mutations, stage their changes, commit them in batches. */
    private final class Passes implements WriterLoop.Work {
        @Override
        public void runOnce() {
            State current = state;
            if (current != null) {
                commitBatch(current); // changes staged by the control tasks that ran before this pass
            }
            int handled = 0;
            while (handled < MAX_MUTATIONS_PER_RUN && !inbox.isEmpty()) {
                if (!ensureLoaded()) {
                    failInbox(failureNow());
                    break;
                }
                State s = state;
                if (writer.backlogFull()) {
                    break; // a commit will run as a writer task and restart us
                }
                s.store.touchRecorded();
                int n = 0;
                Mutation m;
                while (n < MAX_APPEND_RECORDS && s.batch.bytes < appendLimit() && !s.dead
                        && (m = inbox.poll()) != null) {
                    apply(s, m, clock.millis()); // per mutation: an ack may let the caller move a test clock
                    n++;
                }
                handled += n;
                commitBatch(s);
                loop.runControlTasks();
                if (state != null) {
                    commitBatch(state);
                }
            }
            State s = state;
            if (s != null) {
                nextExpiry = s.store.nextExpiry();
            }
            backlogFull = s != null && writer.backlogFull();
        }

        @Override
        public boolean hasWork() {
            return !inbox.isEmpty() && !backlogFull;
        }

        @Override
        public void failed(Throwable cause) {
            FelixError error = FelixError.of(ErrorCode.INTERNAL, "cache writer failed: " + cause);
            State s = state;
            if (s != null) {
                failPendingWatches(s, error);
            }
            watches.endAll(error);
        }
    }

    /**
     * The sequencer's verdicts, on the writer. A committed batch is published to the store and the change ring at
     * once, acknowledged, and only then offered to the watches ({@link #afterCommits}): a watch's wake-up queues a
     * drain on its event loop, and a put's acknowledgement queued behind a hundred of those would wait for every
     * watcher's delivery (issue 12 item 4). Readers see the change before its requester hears of it either way.
     */
    private final class Committed implements LogWriter.Owner<Batch> {
        /** Changes made visible and answered, not yet offered to the watches. Writer only. */
        private final ArrayList<Change> toWatches = new ArrayList<>();

        @Override
        public void visible(Batch b) {
            State s = state;
            for (int i = 0; i < b.changes.size(); i++) {
                Change c = b.changes.get(i);
                s.store.publish(c, b.nodes.get(i));
                s.ring.add(c);
                toWatches.add(c);
            }
            // Before anyone hears of the batch, so info() never lags an acknowledgement.
            publishedNext = s.visible();
            publishedOldest = oldest(s);
            backlogFull = writer.backlogFull();
            if (storage != null && s.compaction == null
                    && s.visible() - s.lastSnapshot >= config.snapshotEveryChanges()) {
                startCompaction(s);
            }
        }

        @Override
        public void answer(Batch b, FelixError error) {
            if (error == null) {
                for (Ack a : b.acks) {
                    a.future.complete(a.value);
                }
                return;
            }
            failAcks(b, error);
            State s = state;
            if (s != null && !s.dead) {
                // The store already holds the batch's changes: it can no longer follow the log. Reload.
                storageFailed(s, error);
            }
        }

        @Override
        public void refused(Batch b, FelixError error) {
            // The batch stays in the log and in line (a quorum window ran out): its requesters are told now, and
            // it becomes visible if a majority later holds it. The store still follows the log: no reload.
            failAcks(b, error);
        }

        @Override
        public void failed(FelixError error) {
            State s = state;
            if (s != null && !s.dead) {
                storageFailed(s, error);
            }
        }

        @Override
        public void afterCommits() {
            // In offset order; a watch registers in a writer task of its own, never between visible() and here,
            // so none can start at a snapshot that already holds one of these changes.
            for (int i = 0; i < toWatches.size(); i++) {
                watches.fanout(toWatches.get(i), config.watcherQueue());
            }
            toWatches.clear();
        }

        /**
         * Part or all of an inherited tail committed: published like a batch, then the requests held behind the tail
         * are answered, then the watches are told (as for a put, see the class comment), and only then do the
         * snapshot watches held behind the tail register, so none of them is also offered a change its snapshot holds.
         */
        @Override
        public void recovered(long end) {
            // toWatches is empty on entry: the tail is committed before any batch appended after it is visible.
            State s = state;
            if (s == null) {
                return;
            }
            CacheLog.Uncommitted u;
            while ((u = s.uncommitted.peek()) != null && u.change().offset() < end) {
                s.uncommitted.poll();
                s.store.publish(u.change(), u.node());
                s.ring.add(u.change());
                toWatches.add(u.change());
            }
            publishedNext = s.visible();
            publishedOldest = oldest(s);
            boolean wholeTail = s.uncommitted.isEmpty();
            if (wholeTail) {
                inheritedTail = null;
                for (Ack a : s.afterRecovered) {
                    a.future.complete(a.value);
                }
                s.afterRecovered.clear();
            }
            afterCommits();
            if (wholeTail) {
                for (PendingSnapshotWatch pw : s.snapshotsAfterRecovered) {
                    watches.register(s, pw.watcher(), null, null, incarnation, pw.result());
                }
                s.snapshotsAfterRecovered.clear();
            }
        }
    }

    // ------------------------------------------------------------------ writer: loading

    /** Loads the cache if needed; false (see {@link #failureNow()}) if it cannot be. Writer thread. */
    private boolean ensureLoaded() {
        if (state != null) {
            return true;
        }
        if (closing || loadFailure != null) {
            return false;
        }
        CacheLog.Opened opened;
        EntryTable table = new EntryTable(true);
        FelixError[] refused = new FelixError[1];
        try {
            gates.checkMayOpen(ref); // not the leader here: leave the directory to this node's replica
        } catch (FelixException e) {
            gateRefusal = e.error(); // not ours to write now: a later use tries again
            return false;
        }
        try {
            opened = storage.open(incarnationKnown ? incarnation : null, table, log -> {
                try {
                    return gates.open(ref, log, onCommit);
                } catch (FelixException e) {
                    refused[0] = e.error();
                    throw e;
                }
            });
        } catch (FelixException e) {
            if (refused[0] != null) {
                gateRefusal = refused[0];
                return false;
            }
            loadFailure = e.error();
            LOG.error("{}; cache {} is unavailable until this is repaired, other caches are unaffected",
                    e.getMessage(), label);
            return false;
        }
        gateRefusal = null;
        writer.reset(storage.log(), opened.next(), opened.committed(), opened.gate().gate());
        State s = newState(opened.next(), opened.committed(), table);
        s.uncommitted.addAll(opened.uncommitted());
        inheritedTail = lastChangePerKey(opened.uncommitted());
        incarnation = opened.incarnation();
        incarnationKnown = true;
        s.lastSnapshot = opened.snapshotOffset();
        publishedNext = s.visible();
        publishedOldest = oldest(s);
        state = s;
        nextExpiry = s.store.nextExpiry();
        return true;
    }

    /** Each key the changes touch, with the offset of the last change to it; null when there are none. */
    private static Map<String, Long> lastChangePerKey(List<CacheLog.Uncommitted> changes) {
        if (changes.isEmpty()) {
            return null;
        }
        Map<String, Long> last = new HashMap<>();
        for (CacheLog.Uncommitted u : changes) {
            last.put(u.change().key(), u.change().offset());
        }
        return Map.copyOf(last);
    }

    private State newState(long next) {
        return newState(next, next, null);
    }

    /**
     * @param next    offset of the next change the store decides
     * @param visible offset the change ring starts at (below {@code next} when the log holds uncommitted changes)
     */
    private State newState(long next, long visible, EntryTable loaded) {
        State[] holder = new State[1];
        CacheStore store = new CacheStore(config, metrics, reads, (c, node) -> stage(holder[0], c, node), next,
                loaded);
        State s = new State(store, new ChangeRing(config.changeRingEvents(), config.changeRingBytes(), visible),
                writer);
        holder[0] = s;
        return s;
    }

    /** Why the cache cannot serve right now. */
    private FelixError failureNow() {
        if (closing) {
            return closedError();
        }
        if (loadFailure != null) {
            return loadFailure;
        }
        if (gateRefusal != null) {
            return gateRefusal;
        }
        return FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " is not loaded");
    }

    private FelixError closedError() {
        return FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " is closed");
    }

    /** A read found the cache unloaded: load it, waiting (or inline, on the writer thread). */
    private State awaitLoaded() throws FelixException {
        if (loop.inWriter()) {
            if (!ensureLoaded()) {
                throw failureNow().toException();
            }
            return state;
        }
        try {
            load().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw FelixError.of(ErrorCode.UNAVAILABLE, "interrupted while cache " + label + " was loading")
                    .toException();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof FelixException fe) {
                throw fe;
            }
            throw FelixError.of(ErrorCode.INTERNAL, "loading cache " + label + " failed: " + e.getCause())
                    .toException();
        }
        State s = state;
        if (s == null) {
            throw failureNow().toException();
        }
        return s;
    }

    // ------------------------------------------------------------------ writer: changes

    private void apply(State s, Mutation m, long now) {
        switch (m.kind) {
            // A barrier orders reads behind queued writes, not behind a recovered tail that may wait for a majority
            // (reads up to the committed end keep working meanwhile).
            case BARRIER -> ack(s, m.future, 0, false);
            case LOAD -> m.future.complete(0L);
            case PUT -> ack(s, m.future, s.store.put(m.key, m.value, m.ttlMillis, now));
            case DELETE -> ack(s, m.future, s.store.delete(m.key, now));
        }
    }

    /** The store decided a change: it joins the batch being formed. */
    private static void stage(State s, Change c, EntryTable.Node node) {
        s.batch.changes.add(c);
        s.batch.nodes.add(node);
        s.batch.bytes += ChangeRing.weight(c);
    }

    /** Completes {@code future} once everything staged so far is visible (at once if it already is). */
    private void ack(State s, CompletableFuture<Long> future, long value) {
        ack(s, future, value, true);
    }

    /**
     * As {@link #ack(State, CompletableFuture, long)}; {@code behindTail}: also after the changes the log held past
     * its committed end at load (a write's answer, decided on them), not only after this writer's own batches.
     */
    private void ack(State s, CompletableFuture<Long> future, long value, boolean behindTail) {
        if (!s.batch.isEmpty()) {
            s.batch.acks.add(new Ack(future, value));
        } else if (writer.newestUnanswered() != null) {
            writer.newestUnanswered().acks.add(new Ack(future, value));
        } else if (behindTail && !s.uncommitted.isEmpty()) {
            s.afterRecovered.add(new Ack(future, value)); // behind the log's uncommitted tail, which commits first
        } else {
            future.complete(value);
        }
    }

    private void sweepPass(CompletableFuture<Long> result, long sofar) {
        State s = state;
        if (s == null) {
            result.complete(sofar); // not loaded: nothing in memory to expire (a load sweeps lazily later)
            return;
        }
        int n = s.store.expireDue(clock.millis(), CacheStore.EXPIRE_PER_PASS);
        if (n == CacheStore.EXPIRE_PER_PASS) {
            loop.post(() -> sweepPass(result, sofar + n)); // more may be due: yield, then continue
            return;
        }
        ack(s, result, sofar + n);
    }

    private void requestExpire(EntryTable.Node n) {
        if (n.expireRequested) {
            return;
        }
        n.expireRequested = true;
        loop.post(() -> {
            State s = state;
            if (s != null) {
                s.store.expireIfDue(n, clock.millis());
            }
        });
    }

    private void requestDrain() {
        if (drainQueued.compareAndSet(false, true)) {
            loop.post(() -> {
                drainQueued.set(false);
                State s = state;
                if (s != null) {
                    s.store.touchRecorded();
                }
            });
        }
    }

    /** Hands the batch being formed to the sequencer (append; commit now or after the gate). */
    private void commitBatch(State s) {
        if (s.batch.isEmpty() || s.dead) {
            return;
        }
        Batch b = s.batch;
        s.batch = new Batch();
        byte[][] records = null;
        if (storage != null) {
            records = new byte[b.changes.size()][];
            for (int i = 0; i < records.length; i++) {
                records[i] = ChangeCodec.encode(b.changes.get(i));
            }
        }
        writer.append(b, b.changes.size(), records);
    }

    /**
     * The log failed: fail what waits on it, end every watch (resumable from its offset), close the log and
     * unload; the next use reloads from disk, which holds exactly what was written.
     */
    private void storageFailed(State s, FelixError error) {
        LOG.error("{}; cache {} unloads and reloads from disk on next use", error.message(), label);
        s.dead = true;
        state = null;
        failAcks(s.batch, error);
        failAfterRecovered(s, error);
        writer.fail(error);
        writer.closeGate();
        FelixError lost = FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " lost its storage ("
                + error.message() + "); resume from the offset given");
        failPendingWatches(s, lost);
        watches.endAll(lost);
        storage.close(false, incarnation);
        backlogFull = false;
    }

    private static void failAfterRecovered(State s, FelixError error) {
        for (Ack a : s.afterRecovered) {
            a.future.completeExceptionally(error.toException());
        }
        s.afterRecovered.clear();
    }

    private static void failPendingWatches(State s, FelixError error) {
        for (PendingSnapshotWatch pw : s.snapshotsAfterRecovered) {
            pw.result().completeExceptionally(error.toException());
        }
        s.snapshotsAfterRecovered.clear();
    }

    private static void failAcks(Batch b, FelixError error) {
        for (Ack a : b.acks) {
            a.future.completeExceptionally(error.toException());
        }
        b.acks.clear();
    }

    // ------------------------------------------------------------------ writer: compaction

    /**
     * Takes the visible state (writer thread, O(entries) reference copies), makes the log durable up to it
     * and writes the snapshot on the I/O executor; {@link #compacted} then trims the log.
     */
    private void startCompaction(State s) {
        long offset = s.visible();
        List<EntryTable.Node> nodes = s.store.table().viewInLruOrder();
        long now = clock.millis();
        CompletableFuture<Void> written = storage.flush(offset)
                .thenRunAsync(() -> storage.writeSnapshot(offset, nodes, now), io);
        s.compaction = written;
        written.whenComplete((v, e) -> loop.post(() -> compacted(s, offset, e)));
    }

    private void compacted(State s, long offset, Throwable error) {
        s.compaction = null;
        List<CompletableFuture<Long>> waiters = new ArrayList<>(s.compactWaiters);
        s.compactWaiters.clear();
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            metrics.snapshotFailures.increment();
            LOG.warn("snapshot of cache {} at offset {} failed; the log is kept whole: {}", label, offset,
                    cause.toString());
            for (CompletableFuture<Long> w : waiters) {
                w.completeExceptionally(FelixError.of(ErrorCode.UNAVAILABLE, "snapshot of cache " + label
                        + " failed: " + cause.getMessage()).toException());
            }
            return;
        }
        metrics.snapshots.increment();
        s.lastSnapshot = offset;
        if (s == state && !s.dead && !closing) {
            try {
                storage.afterSnapshot(offset);
            } catch (java.io.IOException | RuntimeException e) {
                LOG.warn("compacting cache {} after its snapshot at {} failed (retried after the next snapshot): {}",
                        label, offset, e.toString());
            }
            publishedOldest = oldest(s);
        }
        for (CompletableFuture<Long> w : waiters) {
            w.complete(offset);
        }
        if (s == state && !s.dead && !closing && s.visible() - s.lastSnapshot >= config.snapshotEveryChanges()) {
            startCompaction(s);
        }
    }

    // ------------------------------------------------------------------ writer: shutdown

    /** Returns the snapshot still being written, if any, so close can wait for it. */
    private CompletableFuture<Void> shutdown(FelixError reason) {
        if (shutDown) {
            return null;
        }
        shutDown = true;
        State s = state;
        CompletableFuture<Void> pendingSnapshot = null;
        if (s != null && storage != null) {
            commitBatch(s);
            if (!s.dead) {
                writer.force(); // forces what waits for its fsync, so it is acknowledged
                // What the gate could not commit alone (a replicated cache waiting for a majority) is answered
                // now; dead first, so these answers do not unload and reload the cache.
                s.dead = true;
                FelixError notCommitted = FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " closed before"
                        + " the change was committed (" + (reason != null ? reason.message() : "closed") + "); it may"
                        + " still commit, so a retrying writer must expect it applied");
                writer.fail(notCommitted);
                failAfterRecovered(s, notCommitted);
            }
            writer.closeGate();
            pendingSnapshot = s.compaction;
        }
        if (s != null) {
            failPendingWatches(s, reason != null ? reason : closedError());
        }
        watches.endAll(reason != null ? reason : closedError());
        failInbox(reason != null ? reason : closedError());
        if (storage != null && state != null) {
            storage.close(true, incarnation);
        }
        state = null;
        return pendingSnapshot;
    }

    private void failInbox(FelixError error) {
        Mutation m;
        while ((m = inbox.poll()) != null) {
            m.future.completeExceptionally(error.toException());
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Change bytes of one log batch: within a segment, and within {@link #MAX_APPEND_BYTES}. */
    private long appendLimit() {
        return Math.min(MAX_APPEND_BYTES, config.segmentBytes() / 2);
    }

    private static long newIncarnation() {
        long v = RANDOM.nextLong() & Long.MAX_VALUE;
        return v == 0 ? 1 : v;
    }

    /** Null if {@code key} is a valid key, else why not. */
    static FelixError checkKey(String key) {
        if (key == null || key.isEmpty()) {
            return FelixError.of(ErrorCode.BAD_REQUEST, "key must not be empty");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            return FelixError.of(ErrorCode.BAD_REQUEST, "key is longer than " + MAX_KEY_LENGTH + " characters");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return FelixError.of(ErrorCode.BAD_REQUEST, "key has an unpaired surrogate at index " + i);
            }
            if (Character.isLowSurrogate(c)) {
                return FelixError.of(ErrorCode.BAD_REQUEST, "key has an unpaired surrogate at index " + i);
            }
        }
        return null;
    }

    private static long saturatedMillis(Duration d) {
        try {
            return Math.max(1, d.toMillis());
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "Cache[" + label + ", " + config.backing().wireName() + "]";
    }
}
