package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.storage.AppendResult;
import dev.felix.storage.StorageException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * <h2>Concurrency: a single writer</h2>
 * All mutable state (entries, LRU order, expiry index, change offsets, change ring, watchers, the log) is
 * owned by the cache's <em>writer</em>: a task on a shared executor that never runs on two threads at once and
 * is rescheduled whenever work arrives (as {@code stream.Shard}). Other threads only enqueue: mutations into
 * the bounded writer queue ({@link CacheConfig#writerQueue()}; full = {@code overloaded}), everything else
 * as control tasks. Reads ({@link #get}) take no lock: they look the key up in the published view (a
 * {@code ConcurrentHashMap} only the writer mutates) and record the access in a lossy buffer the writer
 * drains to keep its LRU order.
 *
 * <h2>Offsets</h2>
 * Every change — put, delete, expiry, eviction — gets the next offset of the cache's change sequence,
 * from 0, contiguous, assigned by the writer. A change is <em>visible</em> (to reads and watches) once it is
 * applied; a log cache makes a batch visible after appending it, or after its fsync under {@code on_commit},
 * so nobody ever sees a change that a crash could take back (under {@code on_commit}). Offsets belong to an
 * {@linkplain #incarnation() incarnation}: a memory cache starts a new one whenever it is created; a log cache
 * keeps its incarnation across restarts unless an unclean stop under a lossy fsync policy may have lost
 * visible changes (see {@link CacheMeta}).
 *
 * <h2>TTL, capacity</h2>
 * Expiry times are absolute (epoch ms from the injected {@link Clock}) so they survive a restart. An expired
 * entry reads as absent at once (lazy expiry) and the reader asks the writer to remove it; the writer also
 * removes expired entries when {@link #sweep()} runs (the owner calls it periodically; {@link Caches} does
 * so on its timer), before evicting anything, and when a delete finds the key expired. Each removal is an
 * {@link Change.Op#EXPIRE} change. Beyond {@link CacheConfig#maxEntries()} the least recently used entry
 * (reads and writes count as use) is evicted as an {@link Change.Op#EVICT} change. Trade-off: accesses are
 * recorded through a lossy buffer, so under very heavy read load a few accesses may be missed and the
 * eviction order is then approximately, not exactly, LRU.
 *
 * <h2>Watch</h2>
 * See {@link #watch(String, Long, Long, WatchListener)}. Without a resume offset the watcher gets a snapshot
 * at the visible offset N (taken on the writer thread, so it is exactly the state after the changes below
 * N), then every change from N on. With an offset M it gets exactly the changes from M on, replayed from the
 * change ring (memory cache) or the log (log cache) at the pace its queue allows, then live. A live watcher
 * whose queue is full is <em>ended</em> with {@link WatchEnded#resumeFrom()} = the first change it did not
 * get; the writer never blocks on a watcher and never drops a change silently.
 *
 * <h2>Log backing</h2>
 * See {@link CacheLog}: every change is a log record at the same offset; puts and deletes are acknowledged
 * after their append (and, under {@code on_commit}, its fsync); every
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
    /** Records of one log append. */
    static final int MAX_APPEND_RECORDS = 1024;
    /** Payload bytes after which a log batch is appended. */
    static final long MAX_APPEND_BYTES = 1L << 20;
    /** {@code on_commit}: appended batches waiting for their fsync before the writer stops appending. */
    static final int MAX_FLUSH_BACKLOG = 64;
    /** Expired entries one sweep pass removes before yielding. */
    static final int EXPIRE_PER_PASS = 1024;
    /** Changes a replaying watcher is given (or skips) per writer turn before yielding. */
    static final int REPLAY_PER_RUN = 4096;
    /** Records one log read may return for a replaying watcher. */
    static final int LOG_READ_MAX_RECORDS = 4096;
    /** Payload bytes one log read may return for a replaying watcher. */
    static final long LOG_READ_MAX_BYTES = 4L << 20;

    /** Bytes the log adds to each record (its record header). */
    static final int RECORD_OVERHEAD = 28;

    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What an inbox item asks for. */
    private enum Kind {
        PUT, DELETE,
        /** No change: completes once everything queued before it is visible (and loads the cache). */
        BARRIER
    }

    /** A put, delete or barrier waiting for the writer, in arrival order. */
    private record Mutation(Kind kind, String key, byte[] value, long ttlMillis, CompletableFuture<Long> future,
            long bytes) {
    }

    /** A future to complete with {@code value} once everything staged before it is visible. */
    private record Ack(CompletableFuture<Long> future, long value) {
    }

    /** Staged changes of a log cache: appended together, made visible together. */
    private static final class Batch {
        final ArrayList<Change> changes = new ArrayList<>();
        final ArrayList<EntryTable.Node> nodes = new ArrayList<>();
        final ArrayList<Ack> acks = new ArrayList<>();
        long bytes;

        boolean isEmpty() {
            return changes.isEmpty();
        }

        long end() {
            return changes.get(changes.size() - 1).offset() + 1;
        }
    }

    /** Everything that exists while the cache is loaded; replaced wholesale by a reload. Writer-owned. */
    private static final class State {
        final EntryTable table;
        final ChangeRing ring;
        /** Offset the next staged change gets. */
        long next;
        /** Every change below it is visible. */
        long visible;
        long lastSnapshot;
        boolean dead;
        Batch batch = new Batch();
        final ArrayDeque<Batch> awaitingFlush = new ArrayDeque<>();
        /** The snapshot being written, or null. */
        CompletableFuture<Void> compaction;
        final List<CompletableFuture<Long>> compactWaiters = new ArrayList<>();

        State(EntryTable table, ChangeRing ring, long next) {
            this.table = table;
            this.ring = ring;
            this.next = next;
            this.visible = next;
        }
    }

    private final CacheName name;
    private final String label;
    private final CacheConfig config;
    private final Executor executor;
    private final Executor io;
    private final Clock clock;
    /** Null for a memory cache. */
    private final CacheLog storage;
    private final boolean onCommit;
    private final LongSupplier watchIds;
    private final CacheMetrics metrics = new CacheMetrics();

    // Multi-producer side.
    private final ConcurrentLinkedQueue<Mutation> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicLong inboxEvents = new AtomicLong();
    private final AtomicLong inboxBytes = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
    private final AtomicInteger runState = new AtomicInteger(IDLE);
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
    private volatile int publishedWatchers;
    /** Earliest expiry among entries, so a periodic sweep of an idle cache costs one comparison. */
    private volatile long nextExpiry = CacheEntry.NEVER;
    private volatile boolean backlogFull;
    /** The thread running the writer right now, so a read from a writer callback does not wait on itself. */
    private volatile Thread writerThread;

    // Writer-owned.
    private final ArrayList<Watcher> watchers = new ArrayList<>();
    private FelixError loadFailure;
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
        if ((config.backing() == CacheConfig.Backing.LOG) != (storage != null)) {
            throw new IllegalArgumentException("a " + config.backing().wireName() + " cache "
                    + (storage == null ? "needs" : "takes no") + " log");
        }
        this.name = name;
        this.label = name.toString();
        this.config = config;
        this.storage = storage;
        this.onCommit = storage != null && config.fsync() == dev.felix.core.StreamConfig.Fsync.ON_COMMIT;
        this.executor = executor;
        this.io = io;
        this.clock = clock;
        this.watchIds = watchIds;
        if (storage == null) {
            // A memory cache has nothing to load: it exists from here on, in a fresh incarnation.
            State s = new State(new EntryTable(false), newRing(0), 0);
            this.incarnation = newIncarnation();
            this.incarnationKnown = true;
            this.state = s;
            this.publishedNext = 0;
            this.publishedOldest = 0;
        }
    }

    public CacheName name() {
        return name;
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

    /** A moment's view of offsets and size; never loads. */
    public CacheInfo info() {
        State s = state;
        if (s == null) {
            return new CacheInfo(false, -1, -1, -1, incarnation, publishedWatchers);
        }
        return new CacheInfo(true, publishedOldest, publishedNext, s.table.view.size(), incarnation,
                publishedWatchers);
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
            inbox.add(new Mutation(Kind.BARRIER, null, null, 0, barrier, 0));
            schedule();
        }
        return barrier.thenApply(v -> info());
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
     * @throws FelixException {@code bad_request} for an invalid key; {@code unavailable} or {@code corruption}
     *                        when the cache is closed or cannot be loaded
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
        EntryTable.Node n = s.table.view.get(key);
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

    /**
     * Removes every entry whose TTL has run out (as {@link Change.Op#EXPIRE} changes, in expiry order).
     * Completes with how many were removed, once those removals are visible. The owner calls this
     * periodically; {@link Caches} does on its timer.
     */
    public CompletableFuture<Long> sweep() {
        CompletableFuture<Long> result = new CompletableFuture<>();
        post(() -> sweepPass(result, 0));
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
        post(() -> {
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
            if (s.compaction == null && s.visible == s.lastSnapshot) {
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
     *       ({@link SnapshotChunk}s), then every change from N on.</li>
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
        WatcherQueue queue = new WatcherQueue(limits, () -> post(() -> onSpace(holder[0])));
        Watcher w = new Watcher(watchIds.getAsLong(), p, listener, queue);
        holder[0] = w;
        post(() -> register(w, fromOffset, incarnation, result));
        return result;
    }

    void unwatch(Watcher w) {
        post(() -> {
            detach(w);
            w.queue.clear();
        });
    }

    // ------------------------------------------------------------------ lifecycle (any thread)

    /**
     * Closes the cache: appends and flushes what is staged (acknowledging it), ends every watch with
     * {@code unavailable} (resumable), fails queued mutations with {@code unavailable}, closes the log and
     * records a clean shutdown. Completes once that has run and any snapshot being written is finished.
     * Idempotent.
     */
    public CompletableFuture<Void> close() {
        closing = true;
        post(() -> {
            CompletableFuture<Void> pendingSnapshot = null;
            try {
                pendingSnapshot = shutdown();
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

    // ------------------------------------------------------------------ writer scheduling

    private CompletableFuture<Long> submit(Mutation m) {
        if (closing) {
            m.future.completeExceptionally(closedError().toException());
            return m.future;
        }
        long events = inboxEvents.incrementAndGet();
        long bytes = inboxBytes.addAndGet(m.bytes);
        QueueLimits limits = config.writerQueue();
        if (events != 1 && (events > limits.events() || bytes > limits.bytes())) {
            inboxEvents.decrementAndGet();
            inboxBytes.addAndGet(-m.bytes);
            metrics.rejected.increment();
            m.future.completeExceptionally(FelixError.of(ErrorCode.OVERLOADED, "the writer queue of cache " + label
                    + " is full (" + limits.events() + " mutations / " + limits.bytes() + " bytes); retry later")
                    .toException());
            return m.future;
        }
        inbox.add(m);
        schedule();
        return m.future;
    }

    private void post(Runnable task) {
        control.add(task);
        schedule();
    }

    private void schedule() {
        if (!runState.compareAndSet(IDLE, SCHEDULED)) {
            return;
        }
        try {
            executor.execute(this::runLoop);
        } catch (RejectedExecutionException e) {
            // The owner stopped the executor (shutdown). This caller won the CAS and owns the writer: run the
            // remaining work here so close still answers everything.
            runLoop();
        }
    }

    private void runLoop() {
        while (true) {
            writerThread = Thread.currentThread();
            try {
                runOnce();
            } catch (Throwable t) {
                LOG.error("cache {} writer failed; its watches are ended", label, t);
                endAll(FelixError.of(ErrorCode.INTERNAL, "cache writer failed: " + t));
            } finally {
                writerThread = null;
            }
            runState.set(IDLE);
            boolean work = !control.isEmpty() || (!inbox.isEmpty() && !backlogFull);
            if (!work || !runState.compareAndSet(IDLE, SCHEDULED)) {
                return;
            }
            try {
                executor.execute(this::runLoop);
                return;
            } catch (RejectedExecutionException e) {
                // shutting down: keep going on this thread
            }
        }
    }

    private void runOnce() {
        runControlTasks();
        int handled = 0;
        while (handled < MAX_MUTATIONS_PER_RUN && !inbox.isEmpty()) {
            if (!ensureLoaded()) {
                failInbox(failureNow());
                break;
            }
            State s = state;
            if (s.awaitingFlush.size() >= MAX_FLUSH_BACKLOG) {
                break; // flushed() will run as a control task and restart us
            }
            drainReads(s);
            int n = 0;
            Mutation m;
            while (n < MAX_APPEND_RECORDS && s.batch.bytes < appendLimit() && !s.dead
                    && (m = inbox.poll()) != null) {
                if (m.kind != Kind.BARRIER) {
                    inboxEvents.decrementAndGet();
                    inboxBytes.addAndGet(-m.bytes);
                }
                apply(s, m, clock.millis()); // per mutation: an ack may let the caller move a test clock
                n++;
            }
            handled += n;
            commitBatch(s);
            runControlTasks();
        }
        State s = state;
        if (s != null) {
            EntryTable.Node first = s.table.firstToExpire();
            nextExpiry = first == null ? CacheEntry.NEVER : first.expiresAt;
            backlogFull = s.awaitingFlush.size() >= MAX_FLUSH_BACKLOG;
        }
    }

    /** Runs control tasks, then appends whatever they staged (expiries). */
    private void runControlTasks() {
        Runnable task;
        while ((task = control.poll()) != null) {
            task.run();
        }
        State s = state;
        if (s != null) {
            commitBatch(s);
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
        EntryTable table = new EntryTable(true);
        CacheLog.Opened opened;
        try {
            opened = storage.open(incarnationKnown ? incarnation : null, table);
        } catch (FelixException e) {
            loadFailure = e.error();
            LOG.error("{}; cache {} is unavailable until this is repaired, other caches are unaffected",
                    e.getMessage(), label);
            return false;
        }
        incarnation = opened.incarnation();
        incarnationKnown = true;
        State s = new State(table, newRing(opened.next()), opened.next());
        s.lastSnapshot = opened.snapshotOffset();
        publishedNext = s.visible;
        publishedOldest = oldest(s);
        state = s;
        EntryTable.Node first = table.firstToExpire();
        nextExpiry = first == null ? CacheEntry.NEVER : first.expiresAt;
        return true;
    }

    /** Why the cache cannot serve right now. */
    private FelixError failureNow() {
        if (closing) {
            return closedError();
        }
        if (loadFailure != null) {
            return loadFailure;
        }
        return FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " is not loaded");
    }

    private FelixError closedError() {
        return FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " is closed");
    }

    /** A read found the cache unloaded: load it, waiting (or inline, on the writer thread). */
    private State awaitLoaded() throws FelixException {
        if (Thread.currentThread() == writerThread) {
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
        if (m.kind == Kind.BARRIER) {
            ack(s, m.future, 0);
            return;
        }
        if (m.kind == Kind.PUT) {
            long expiresAt = m.ttlMillis == 0 ? CacheEntry.NEVER : saturatedAdd(now, m.ttlMillis);
            EntryTable.Node node = s.table.newNode(m.key, m.value, expiresAt);
            long offset = emitPut(s, node);
            metrics.puts.increment();
            enforceCapacity(s, now, node);
            ack(s, m.future, offset);
            return;
        }
        EntryTable.Node old = s.table.lookup(m.key);
        if (old == null) {
            ack(s, m.future, NO_CHANGE);
        } else if (old.expiredAt(now)) {
            emitRemove(s, old, Change.Op.EXPIRE);
            metrics.expirations.increment();
            ack(s, m.future, NO_CHANGE);
        } else {
            long offset = emitRemove(s, old, Change.Op.DELETE);
            metrics.deletes.increment();
            ack(s, m.future, offset);
        }
    }

    private long emitPut(State s, EntryTable.Node node) {
        long offset = s.next++;
        s.table.stagePut(node, offset);
        stage(s, new Change(offset, node.key, Change.Op.PUT, node.value, node.expiresAt), node);
        return offset;
    }

    private long emitRemove(State s, EntryTable.Node old, Change.Op op) {
        long offset = s.next++;
        s.table.stageRemove(old, offset);
        stage(s, new Change(offset, old.key, op, null, CacheEntry.NEVER), null);
        return offset;
    }

    /** A memory cache makes the change visible now; a log cache adds it to the batch being formed. */
    private void stage(State s, Change c, EntryTable.Node node) {
        if (storage == null) {
            makeVisible(s, c, node);
            publishedNext = s.visible;
            publishedOldest = oldest(s);
            return;
        }
        s.batch.changes.add(c);
        s.batch.nodes.add(node);
        s.batch.bytes += ChangeRing.weight(c);
    }

    /** Completes {@code future} once everything staged so far is visible (at once if it already is). */
    private void ack(State s, CompletableFuture<Long> future, long value) {
        if (!s.batch.isEmpty()) {
            s.batch.acks.add(new Ack(future, value));
        } else if (!s.awaitingFlush.isEmpty()) {
            s.awaitingFlush.peekLast().acks.add(new Ack(future, value));
        } else {
            future.complete(value);
        }
    }

    /** Evicts least recently used entries while over capacity; {@code written} (just put) is never chosen. */
    private void enforceCapacity(State s, long now, EntryTable.Node written) {
        int max = config.maxEntries();
        if (s.table.size() <= max) {
            return;
        }
        expireDue(s, now, EXPIRE_PER_PASS); // expired entries go before anything live is evicted
        if (s.table.size() <= max) {
            return;
        }
        drainReads(s);
        s.table.touch(written); // the write is its most recent use, whatever reads were recorded meanwhile
        while (s.table.size() > max) {
            emitRemove(s, s.table.eldest(), Change.Op.EVICT);
            metrics.evictions.increment();
        }
    }

    /** Removes up to {@code limit} expired entries, earliest first; returns how many. */
    private int expireDue(State s, long now, int limit) {
        int n = 0;
        EntryTable.Node first;
        while (n < limit && (first = s.table.firstToExpire()) != null && first.expiresAt <= now) {
            emitRemove(s, first, Change.Op.EXPIRE);
            metrics.expirations.increment();
            n++;
        }
        return n;
    }

    private void sweepPass(CompletableFuture<Long> result, long sofar) {
        State s = state;
        if (s == null) {
            result.complete(sofar); // not loaded: nothing in memory to expire (a load sweeps lazily later)
            return;
        }
        int n = expireDue(s, clock.millis(), EXPIRE_PER_PASS);
        if (n == EXPIRE_PER_PASS) {
            post(() -> sweepPass(result, sofar + n)); // more may be due: yield, then continue
            return;
        }
        ack(s, result, sofar + n);
    }

    private void requestExpire(EntryTable.Node n) {
        if (n.expireRequested) {
            return;
        }
        n.expireRequested = true;
        post(() -> {
            State s = state;
            if (s != null && s.table.lookup(n.key) == n && n.expiredAt(clock.millis())) {
                emitRemove(s, n, Change.Op.EXPIRE);
                metrics.expirations.increment();
            }
        });
    }

    private void requestDrain() {
        if (drainQueued.compareAndSet(false, true)) {
            post(() -> {
                drainQueued.set(false);
                State s = state;
                if (s != null) {
                    drainReads(s);
                }
            });
        }
    }

    private void drainReads(State s) {
        reads.drain(n -> {
            // Accesses may name nodes already replaced, removed, or from before a reload: only live ones move.
            if (s.table.lookup(n.key) == n) {
                s.table.touch(n);
            }
        });
    }

    // ------------------------------------------------------------------ writer: log batches

    /** Appends the batch being formed (log cache) and makes it visible, now or after its fsync. */
    private void commitBatch(State s) {
        if (s.batch.isEmpty() || s.dead) {
            return;
        }
        Batch b = s.batch;
        s.batch = new Batch();
        byte[][] payloads = new byte[b.changes.size()][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = ChangeCodec.encode(b.changes.get(i));
        }
        // One append per chunk of at most appendLimit() record bytes (the log refuses batches beyond a segment).
        int from = 0;
        while (from < payloads.length) {
            int to = from;
            long chunk = 0;
            while (to < payloads.length && (to == from
                    || chunk + RECORD_OVERHEAD + payloads[to].length <= appendLimit())) {
                chunk += RECORD_OVERHEAD + payloads[to].length;
                to++;
            }
            AppendResult appended;
            try {
                appended = storage.append(java.util.Arrays.copyOfRange(payloads, from, to));
            } catch (StorageException e) {
                storageFailed(s, CacheLog.toError(e, "cannot append to the log of cache " + label), b);
                return;
            }
            long expected = b.changes.get(from).offset();
            if (appended.firstOffset() != expected) {
                storageFailed(s, FelixError.of(ErrorCode.INTERNAL, "the log of cache " + label + " appended at"
                        + " offset " + appended.firstOffset() + " but the cache's next change is " + expected), b);
                return;
            }
            from = to;
        }
        if (!onCommit) {
            publish(s, b);
            return;
        }
        s.awaitingFlush.add(b);
        storage.flush(b.end()).whenComplete((v, err) -> post(() -> flushed(s, err)));
    }

    /** A flush completed ({@code on_commit}): publish every batch it made durable, in order. */
    private void flushed(State s, Throwable error) {
        if (s.dead || s != state) {
            return;
        }
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            storageFailed(s, FelixError.of(ErrorCode.UNAVAILABLE, "changes were written to the log of cache "
                    + label + " but forcing them to disk failed (" + cause.getMessage() + "); they may reappear"
                    + " after a restart"), null);
            return;
        }
        long durable = storage.durableOffset();
        while (!s.awaitingFlush.isEmpty() && s.awaitingFlush.peek().end() <= durable) {
            publish(s, s.awaitingFlush.poll());
        }
        backlogFull = s.awaitingFlush.size() >= MAX_FLUSH_BACKLOG;
    }

    /** Makes a batch visible: view, ring, watchers, then acknowledgements. */
    private void publish(State s, Batch b) {
        for (int i = 0; i < b.changes.size(); i++) {
            makeVisible(s, b.changes.get(i), b.nodes.get(i));
        }
        // Before anyone hears of the batch, so info() never lags an acknowledgement.
        publishedNext = s.visible;
        publishedOldest = oldest(s);
        for (Ack a : b.acks) {
            a.future.complete(a.value);
        }
        if (s.compaction == null && s.visible - s.lastSnapshot >= config.snapshotEveryChanges()) {
            startCompaction(s);
        }
    }

    private void makeVisible(State s, Change c, EntryTable.Node node) {
        s.table.publish(c.key(), node, c.offset());
        s.ring.add(c);
        s.visible = c.offset() + 1;
        fanout(c);
    }

    /**
     * The log failed: fail what waits on it, end every watch (resumable from its offset), close the log and
     * unload; the next use reloads from disk, which holds exactly what was written.
     */
    private void storageFailed(State s, FelixError error, Batch extra) {
        LOG.error("{}; cache {} unloads and reloads from disk on next use", error.message(), label);
        s.dead = true;
        state = null;
        if (extra != null) {
            failAcks(extra, error);
        }
        failAcks(s.batch, error);
        while (!s.awaitingFlush.isEmpty()) {
            failAcks(s.awaitingFlush.poll(), error);
        }
        endAll(FelixError.of(ErrorCode.UNAVAILABLE, "cache " + label + " lost its storage (" + error.message()
                + "); resume from the offset given"));
        storage.close(false, incarnation);
        backlogFull = false;
    }

    private static void failAcks(Batch b, FelixError error) {
        for (Ack a : b.acks) {
            a.future.completeExceptionally(error.toException());
        }
    }

    // ------------------------------------------------------------------ writer: compaction

    /**
     * Takes the visible state (writer thread, O(entries) reference copies), makes the log durable up to it
     * and writes the snapshot on the I/O executor; {@link #compacted} then trims the log.
     */
    private void startCompaction(State s) {
        long offset = s.visible;
        List<EntryTable.Node> nodes = s.table.viewInLruOrder();
        long now = clock.millis();
        CompletableFuture<Void> written = storage.flush(offset)
                .thenRunAsync(() -> storage.writeSnapshot(offset, nodes, now), io);
        s.compaction = written;
        written.whenComplete((v, e) -> post(() -> compacted(s, offset, e)));
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
        if (s == state && !s.dead && !closing && s.visible - s.lastSnapshot >= config.snapshotEveryChanges()) {
            startCompaction(s);
        }
    }

    // ------------------------------------------------------------------ writer: watchers

    private void register(Watcher w, Long from, Long expectedIncarnation, CompletableFuture<CacheWatch> result) {
        if (!ensureLoaded()) {
            result.completeExceptionally(failureNow().toException());
            return;
        }
        State s = state;
        if (from == null) {
            long at = s.visible;
            EntryTable.Node[] nodes = s.table.viewMatching(w.prefix);
            w.next = at;
            w.mode = Watcher.Mode.LIVE;
            boolean wake = w.queue.addSnapshot(at, nodes);
            attach(w);
            result.complete(new CacheWatch(this, w, at, true, incarnation));
            if (wake) {
                wake(w);
            }
            return;
        }
        long oldest = oldest(s);
        if (expectedIncarnation != null && expectedIncarnation != incarnation) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_TOO_OLD, "the change history of cache "
                    + label + " restarted (incarnation " + incarnation + ", the offset is from " + expectedIncarnation
                    + "); take a fresh snapshot", oldest).toException());
            return;
        }
        if (from > s.visible) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_IN_FUTURE, "offset " + from
                    + " is past the tail of cache " + label + " (next offset " + s.visible + ")", s.visible)
                    .toException());
            return;
        }
        if (from < oldest) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_TOO_OLD, "offset " + from + " of cache "
                    + label + " is no longer retained; the oldest is " + oldest + ": take a fresh snapshot",
                    oldest).toException());
            return;
        }
        w.next = from;
        w.mode = from == s.visible ? Watcher.Mode.LIVE : Watcher.Mode.REPLAY;
        attach(w);
        result.complete(new CacheWatch(this, w, from, false, incarnation));
        if (w.mode == Watcher.Mode.REPLAY) {
            pump(w);
        }
    }

    /** Offers a newly visible change to every live watcher. */
    private void fanout(Change c) {
        for (int i = 0; i < watchers.size(); i++) {
            Watcher w = watchers.get(i);
            if (w.mode != Watcher.Mode.LIVE) {
                continue;
            }
            if (!w.matches(c.key())) {
                w.next = c.offset() + 1;
                continue;
            }
            WatcherQueue.Offer offer = w.queue.offer(c, false);
            if (offer == WatcherQueue.Offer.FULL) {
                metrics.watchOverflows.increment();
                QueueLimits l = config.watcherQueue();
                end(w, new WatchEnded(c.offset(), FelixError.of(ErrorCode.OVERLOADED, "the watch fell behind its"
                        + " queue (" + l.events() + " changes / " + l.bytes() + " bytes); resume from offset "
                        + c.offset())));
                i--; // end() removed it
                continue;
            }
            w.next = c.offset() + 1;
            metrics.watchDelivered.increment();
            if (offer == WatcherQueue.Offer.ADDED_WAKE) {
                wake(w);
            }
        }
    }

    /**
     * Feeds a replaying watcher by offset — from the ring, else (log cache) from the log — until its queue is
     * full (it signals when it has room) or it reaches the visible tail, where it turns live. Yields after
     * {@value #REPLAY_PER_RUN} changes so a long replay does not hold up the cache.
     */
    private void pump(Watcher w) {
        w.pumpQueued = false;
        State s = state;
        if (w.closed || s == null) {
            return;
        }
        int budget = REPLAY_PER_RUN;
        while (true) {
            if (w.next >= s.visible) {
                w.mode = Watcher.Mode.LIVE;
                return;
            }
            if (budget <= 0) {
                w.pumpQueued = true;
                post(() -> pump(w));
                return;
            }
            Change c = s.ring.get(w.next);
            if (c != null) {
                budget--;
                if (!replayOne(w, c)) {
                    return;
                }
                continue;
            }
            if (storage == null) {
                long oldest = oldest(s);
                end(w, new WatchEnded(w.next, new FelixError(ErrorCode.CURSOR_TOO_OLD, "changes of cache " + label
                        + " from offset " + w.next + " were dropped from memory before this watch read them (oldest"
                        + " now " + oldest + "); take a fresh snapshot", oldest)));
                return;
            }
            List<Change> got = readLog(s, w);
            if (got == null) {
                return; // the watch was ended
            }
            for (Change lc : got) {
                budget--;
                if (!replayOne(w, lc)) {
                    return;
                }
            }
        }
    }

    /** Gives (or skips) one change to a replaying watcher; false when its queue is full. */
    private boolean replayOne(Watcher w, Change c) {
        if (!w.matches(c.key())) {
            w.next = c.offset() + 1;
            return true;
        }
        WatcherQueue.Offer offer = w.queue.offer(c, true);
        if (offer == WatcherQueue.Offer.FULL) {
            return false;
        }
        w.next = c.offset() + 1;
        metrics.watchDelivered.increment();
        if (offer == WatcherQueue.Offer.ADDED_WAKE) {
            wake(w);
        }
        return true;
    }

    /** Reads the next changes for {@code w} from the log, never past the visible tail; null if it ended. */
    private List<Change> readLog(State s, Watcher w) {
        long[] room = w.queue.room();
        long wanted = s.visible - w.next;
        int max = (int) Math.min(wanted, LOG_READ_MAX_RECORDS);
        if (w.prefix == null) {
            max = (int) Math.max(1, Math.min(max, room[0])); // unfiltered: read only what fits
        }
        List<Change> got;
        try {
            got = storage.read(w.next, max, LOG_READ_MAX_BYTES);
        } catch (FelixException e) {
            LOG.error("{}; ending that watch", e.getMessage());
            end(w, new WatchEnded(w.next, e.error()));
            return null;
        }
        if (got == null || got.isEmpty()) {
            long oldest = oldest(s);
            end(w, new WatchEnded(w.next, new FelixError(ErrorCode.CURSOR_TOO_OLD, "changes of cache " + label
                    + " from offset " + w.next + " were compacted away before this watch read them (oldest now "
                    + oldest + "); take a fresh snapshot", oldest)));
            return null;
        }
        return got.size() > wanted ? got.subList(0, (int) wanted) : got;
    }

    private void onSpace(Watcher w) {
        if (!w.closed && w.mode == Watcher.Mode.REPLAY && !w.pumpQueued) {
            pump(w);
        }
    }

    private void attach(Watcher w) {
        watchers.add(w);
        publishedWatchers = watchers.size();
    }

    private void detach(Watcher w) {
        w.closed = true;
        if (watchers.remove(w)) {
            publishedWatchers = watchers.size();
        }
    }

    /** Ends one watch: what is queued stays pollable, then the end marker. */
    private void end(Watcher w, WatchEnded marker) {
        detach(w);
        if (w.queue.end(marker)) {
            wake(w);
        }
    }

    private void endAll(FelixError reason) {
        for (Watcher w : List.copyOf(watchers)) {
            end(w, new WatchEnded(w.next, reason));
        }
    }

    private void wake(Watcher w) {
        try {
            w.listener.onReady();
        } catch (RuntimeException e) {
            LOG.warn("watch listener of cache {} threw; ignored: {}", label, e.toString());
        }
    }

    // ------------------------------------------------------------------ writer: shutdown

    /** Returns the snapshot still being written, if any, so close can wait for it. */
    private CompletableFuture<Void> shutdown() {
        if (shutDown) {
            return null;
        }
        shutDown = true;
        State s = state;
        CompletableFuture<Void> pendingSnapshot = null;
        if (s != null && storage != null) {
            commitBatch(s);
            if (!s.dead && !s.awaitingFlush.isEmpty()) {
                try {
                    storage.awaitDurable(s.next);
                    flushed(s, null);
                } catch (StorageException e) {
                    flushed(s, e);
                }
            }
            pendingSnapshot = s.compaction;
        }
        endAll(closedError());
        failInbox(closedError());
        if (storage != null && state != null) {
            storage.close(true, incarnation);
        }
        state = null;
        return pendingSnapshot;
    }

    private void failInbox(FelixError error) {
        Mutation m;
        while ((m = inbox.poll()) != null) {
            if (m.kind != Kind.BARRIER) {
                inboxEvents.decrementAndGet();
                inboxBytes.addAndGet(-m.bytes);
            }
            m.future.completeExceptionally(error.toException());
        }
    }

    // ------------------------------------------------------------------ helpers

    private long oldest(State s) {
        long ringOldest = s.ring.oldest(s.visible);
        if (storage == null) {
            return ringOldest;
        }
        long base = storage.baseOffset();
        return base < 0 ? ringOldest : Math.min(ringOldest, base);
    }

    /** Record bytes of one log append: within a segment, and within {@link #MAX_APPEND_BYTES}. */
    private long appendLimit() {
        return Math.min(MAX_APPEND_BYTES, config.segmentBytes() / 2);
    }

    private ChangeRing newRing(long next) {
        return new ChangeRing(config.changeRingEvents(), config.changeRingBytes(), next);
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

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 || r >= CacheEntry.NEVER ? CacheEntry.NEVER - 1 : r;
    }

    @Override
    public String toString() {
        return "Cache[" + label + ", " + config.backing().wireName() + "]";
    }
}
