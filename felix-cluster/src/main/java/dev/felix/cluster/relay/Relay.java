package dev.felix.cluster.relay;

import dev.felix.core.stream.EventBatch;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * A node's cross-node relay: it fans batches of shards led elsewhere out to this node's subscriptions, and turns
 * every event it cannot deliver in time into a fence, never into a late or silent delivery.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li>A source (the node's subscription to each shard's leader) hands batches, with their offsets, to
 *       {@link #receive}. The {@link Dispatcher} only routes them, to a fixed set of {@link RelayWorker}s keyed by
 *       {@link RelayKey}; each worker delivers its shards in order from a bounded queue. A subscriber whose
 *       write stalls waits alone, with its own bounded backlog, until the deadline: nobody else waits for it.</li>
 *   <li><b>Known loss</b> (a full worker queue; a batch not delivered within the deadline of this node receiving
 *       it, whether queued, behind a backlog or in a stalled write; a hole in the source's offsets) fences the
 *       subscriptions that missed the events at once ({@link RelayedSubscription}). Then a gap-capable subscriber
 *       on a durable shard is healed by the server's {@link ResumeHook} from a log; another gap-capable subscriber
 *       gets {@code gap{from, to, relay_lag}} before its next event; a plain subscriber is closed with a
 *       {@code resync} error naming the offset to resume from, by the node's one {@link PacedCloser}.</li>
 *   <li><b>Unknown loss</b> (the dispatcher fell behind its source: its backlog was full) fences every
 *       subscription of the relay.</li>
 *   <li>{@link StreamKind#EPHEMERAL_NO_REPLAY} shards: a lost event is counted ({@code dropped{reason=ephemeral}}),
 *       never fences or closes, and is never delivered late either.</li>
 * </ul>
 *
 * <h2>Time</h2>
 * Every deadline is read from one {@code LongSupplier} of nanoseconds, so tests drive the relay with a fake clock
 * and a manual executor. Workers never block; what waits for time (a stalled write's cut-off, the closer's next
 * window) is picked up by {@link #tick()}, which {@link #start} runs every close window.
 *
 * <p><b>Threads.</b> Every public method from any thread.
 */
public final class Relay implements AutoCloseable {

    private final RelaySettings settings;
    private final LongSupplier nanos;
    private final ResumeHook resumeHook;
    private final RelayMetrics metrics;
    private final RelayWorker[] workers;
    private final Dispatcher dispatcher;
    private final PacedCloser closer;
    private final Map<RelayKey, ShardFeed> feeds = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Runnable onClose;

    private Relay(RelaySettings settings, LongSupplier nanos, Executor executor, MeterRegistry registry,
            ResumeHook resumeHook, Runnable onClose) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        this.resumeHook = resumeHook;
        this.onClose = onClose;
        this.metrics = new RelayMetrics(registry);
        this.workers = new RelayWorker[settings.workers()];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new RelayWorker(i, settings.queueBatches(), nanos, metrics, executor);
        }
        this.dispatcher = new Dispatcher(this, workers, settings, nanos, executor);
        this.closer = new PacedCloser(settings, nanos, metrics);
        metrics.bind(registry, dispatcher, workers);
    }

    /**
     * A relay driven by the caller: it runs its lanes on {@code executor} and reads time from {@code nanos}; the
     * caller calls {@link #tick()} (tests, or a server with its own scheduler).
     *
     * @param resumeHook heals gap-capable subscriptions of durable shards; null: they get gap notices instead
     */
    public static Relay create(RelaySettings settings, LongSupplier nanos, Executor executor, MeterRegistry registry,
            ResumeHook resumeHook) {
        return new Relay(settings, nanos, Objects.requireNonNull(executor, "executor"),
                Objects.requireNonNull(registry, "registry"), resumeHook, () -> { });
    }

    /**
     * A relay on its own threads ({@code felix-relay-N}, at most one per worker and per core) with a ticker every
     * close window; {@link #close()} stops them.
     */
    public static Relay start(RelaySettings settings, MeterRegistry registry, ResumeHook resumeHook) {
        int threads = Math.max(1, Math.min(settings.workers(), Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, daemon("felix-relay-"));
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("felix-relay-tick-"));
        Relay relay = new Relay(settings, System::nanoTime, pool, Objects.requireNonNull(registry, "registry"),
                resumeHook, () -> {
                    ticker.shutdownNow();
                    pool.shutdownNow();
                });
        long period = settings.closeWindow().toNanos();
        ticker.scheduleAtFixedRate(relay::tick, period, period, TimeUnit.NANOSECONDS);
        return relay;
    }

    /**
     * Adds a local subscription of {@code key}'s shard.
     *
     * @param kind       how the stream keeps events; every subscription of one shard must agree
     * @param gapCapable whether the subscriber negotiated gap notices
     * @param nextOffset the first offset the subscriber should get from the relay (the server serves anything
     *                   earlier from a log before adding it); a first batch that starts later is a loss
     * @throws IllegalArgumentException if {@code kind} differs from the shard's, or {@code nextOffset} is negative
     */
    public RelayedSubscription subscribe(RelayKey key, StreamKind kind, RelaySink sink, boolean gapCapable,
            long nextOffset) {
        return add(key, kind, sink, gapCapable, nextOffset, false);
    }

    /**
     * Adds a local subscription that starts behind the relay (from an offset, or the earliest): it starts
     * <em>healing</em>. The caller replays it from a log, offering to {@code sink} directly, and ends with
     * {@link RelayedSubscription#rejoin}; meanwhile the relay holds the batches it receives for it (as a stalled
     * write, within the deadline), so a replay that reaches {@link RelayedSubscription#heldFrom()} rejoins
     * without a loss. The resume hook is not called for this first replay.
     */
    public RelayedSubscription subscribeBehind(RelayKey key, StreamKind kind, RelaySink sink, boolean gapCapable,
            long fromOffset) {
        return add(key, kind, sink, gapCapable, fromOffset, true);
    }

    private RelayedSubscription add(RelayKey key, StreamKind kind, RelaySink sink, boolean gapCapable,
            long nextOffset, boolean behind) {
        Objects.requireNonNull(sink, "sink");
        if (nextOffset < 0) {
            throw new IllegalArgumentException("nextOffset must be >= 0, was " + nextOffset);
        }
        ShardFeed feed = feeds.computeIfAbsent(key, k -> new ShardFeed(k, kind, k.worker(workers.length)));
        if (feed.kind != kind) {
            throw new IllegalArgumentException(key + " is relayed as " + feed.kind + ", not " + kind);
        }
        RelayedSubscription s = new RelayedSubscription(ids.incrementAndGet(), feed, sink, gapCapable, nextOffset,
                this, behind);
        feed.add(s);
        return s;
    }

    /**
     * Drops {@code key}'s shard from the relay (its source ended): a later subscribe starts afresh, with no memory
     * of the offsets routed before (a new source may start elsewhere, e.g. a new incarnation of an ephemeral shard).
     * Subscriptions still attached receive nothing more; their owners end them.
     */
    public void forget(RelayKey key) {
        feeds.remove(key);
    }

    /**
     * A batch of {@code key}'s shard arrived from its source; its delivery deadline starts now.
     *
     * @return false if no subscription of the shard is relayed here (nothing to do), or the dispatcher was behind
     *         (every subscription is fenced)
     */
    public boolean receive(RelayKey key, EventBatch batch) {
        ShardFeed feed = feeds.get(key);
        if (feed == null) {
            return false;
        }
        return dispatcher.receive(feed, batch);
    }

    /**
     * Picks up what waits for time: every worker with a stalled subscription offers its backlog again (a stalled
     * write is cut off at its deadline) and the closer closes what its window allows. {@link #start} calls it every
     * close window.
     */
    public void tick() {
        for (RelayWorker w : workers) {
            w.tick();
        }
        closer.runDue();
    }

    /** Fenced subscriptions waiting for the paced closer. */
    public int pendingCloses() {
        return closer.pending();
    }

    public RelaySettings settings() {
        return settings;
    }

    /** Stops the threads of a relay from {@link #start}; subscriptions are left to the server to end. */
    @Override
    public void close() {
        onClose.run();
    }

    // ---- for the relay's parts ----

    RelayMetrics metrics() {
        return metrics;
    }

    ResumeHook resumeHook() {
        return resumeHook;
    }

    PacedCloser closer() {
        return closer;
    }

    int workerOf(RelayKey key) {
        return key.worker(workers.length);
    }

    void signalWorker(ShardFeed feed) {
        workers[feed.worker].signal();
    }

    /** A gap-capable subscription was fenced: its worker announces the gap once it has offered what came before. */
    void announceLater(RelayedSubscription s) {
        workers[s.key().worker(workers.length)].announce(s);
    }

    /** Known loss of {@code batch} before any worker had it: fence its shard's subscriptions. */
    void lost(ShardFeed feed, EventBatch batch, RelayMetrics.Drop reason) {
        if (!feed.kind.fencesOnLoss()) {
            metrics.dropped(RelayMetrics.Drop.EPHEMERAL, batch.eventCount());
            return;
        }
        metrics.dropped(reason, batch.eventCount());
        for (RelayedSubscription s : feed.subscriptions()) {
            s.fence(batch.lastOffset());
        }
    }

    /** The source skipped offsets up to {@code lostTo} of {@code feed}'s shard: fence who had not got them. */
    void sourceSkipped(ShardFeed feed, long lostTo) {
        for (RelayedSubscription s : feed.subscriptions()) {
            s.fence(lostTo);
        }
    }

    /** The dispatcher fell behind: {@code batch} of {@code feed} is lost and the relay cannot say what else. */
    void unknownLoss(ShardFeed feed, EventBatch batch) {
        metrics.dropped(feed.kind.fencesOnLoss() ? RelayMetrics.Drop.QUEUE_FULL : RelayMetrics.Drop.EPHEMERAL,
                batch.eventCount());
        for (ShardFeed f : feeds.values()) {
            for (RelayedSubscription s : f.subscriptions()) {
                s.fence(Long.MAX_VALUE);
            }
        }
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
