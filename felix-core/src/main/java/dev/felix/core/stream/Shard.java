package dev.felix.core.stream;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreConfig;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.FelixException;
import dev.felix.core.writer.GateFactory;
import dev.felix.core.writer.LogRef;
import dev.felix.core.writer.LogWriter;
import dev.felix.core.writer.WriterInbox;
import dev.felix.core.writer.WriterLoop;
import dev.felix.storage.PayloadSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * One shard of a stream: assigns contiguous offsets from 0 and fans every committed batch out to its
 * subscribers.
 *
 * <p><b>Threads.</b> All mutable state is owned by the shard's single writer ({@link WriterLoop}); other
 * threads only enqueue: publishes into the bounded writer queue ({@link #tryPublish}), everything else
 * (subscribe, unsubscribe, queue-space signals) as writer tasks. No lock on the publish path. Public
 * methods are thread-safe; listeners are called on the writer and must not block.
 *
 * <p><b>Path of a publish.</b> The writer merges queued publishes into one {@link EventBatch} (up to
 * {@code max_batch_events} / {@code max_batch_bytes}) and hands it to its {@link LogWriter}, which assigns
 * the offsets, appends to the log (durable shards) and waits at the {@link CommitGate} (the fsync under
 * {@code on_commit}; nothing otherwise). Committed batches come back in offset order: the batch joins the
 * memory ring, {@link ShardFanout} offers the same instance to every live subscriber, and the publishers
 * are acknowledged — in that order, so an acknowledged event is already visible.
 *
 * <p><b>Ownership.</b> Payload arrays of a {@link PublishRequest} pass to the shard; batches are immutable
 * and shared by every subscriber and the ring. So does the reference of a publish's {@link LentPayloads}: a publish
 * that fails gives it back; otherwise the batch made of it takes it over, and the ring keeps it (see
 * {@link EventBatch}); a durable shard's log appends it from there ({@link LentRecords}).
 */
public final class Shard {

    /** Publishes one writer pass handles before yielding its thread to other shards. */
    static final int MAX_PUBLISHES_PER_RUN = 4096;

    /** A batch appended by this shard and the publishes it answers. */
    record Appended(EventBatch events, PublishRequest[] requests, long bytes) {
    }

    private final String label;
    private final int index;
    private final long incarnation;
    private final CoreConfig config;
    private final CoreMetrics metrics;
    private final LongSupplier subscriberIds;
    private final QueuePolicy defaultPolicy;
    /** The shard's log, or null for an ephemeral shard. */
    private final ShardLog log;
    /** Durable shards under {@code on_commit}: commit only once forced to disk. */
    private final boolean onCommit;
    /** Names the log for the gate factory. */
    private final LogRef ref;
    /** Chooses the commit gate when the log opens (local durability, or replication). */
    private final GateFactory gates;
    /**
     * Completes once the runtime this one replaced ({@link Stream#reopenShard}) has closed the log: until then
     * this one must not open it. Completed from the start for a shard's first runtime.
     */
    private final CompletableFuture<Void> predecessorClosed;

    private final WriterLoop loop;
    private final WriterInbox<PublishRequest> inbox;
    private final LogWriter<Appended> writer;
    private final BatchRing ring;
    private final ShardFanout fanout;
    private final ArrayList<PublishRequest> merging = new ArrayList<>();
    /** The view a durable shard's log appends lent payloads through; reused (writer only). */
    private final LentRecords lentRecords = new LentRecords();
    private volatile boolean closing;

    // Published for readers on other threads (info, metrics).
    private volatile long publishedNext;
    private volatile long publishedOldest;

    Shard(String label, int index, long incarnation, CoreConfig config, CoreMetrics metrics, Executor executor,
            LongSupplier subscriberIds, QueuePolicy defaultPolicy, ShardLog log, boolean onCommit, LogRef ref,
            GateFactory gates, CompletableFuture<Void> predecessorClosed) {
        this.predecessorClosed = predecessorClosed;
        this.log = log;
        this.onCommit = onCommit;
        this.ref = ref;
        this.gates = gates;
        this.label = label;
        this.index = index;
        this.incarnation = incarnation;
        this.config = config;
        this.metrics = metrics;
        this.subscriberIds = subscriberIds;
        this.defaultPolicy = defaultPolicy;
        this.ring = new BatchRing(config.ringEvents(), config.ringBytes());
        // Inline (on the broker's event loop that read the publish) only while a pass is cheap: a fanout to many
        // subscribers runs on the pool, beside the event loop, instead of stalling every connection it serves.
        this.loop = config.inlineWriters()
                ? new WriterLoop(label, executor, this::fewSubscribers)
                : new WriterLoop(label, executor, false);
        this.inbox = new WriterInbox<>(config.writerQueue(), new WriterInbox.Weigher<>() {
            @Override
            public int events(PublishRequest r) {
                return r.eventCount();
            }

            @Override
            public long bytes(PublishRequest r) {
                return r.payloadBytes();
            }
        });
        this.writer = new LogWriter<>(label, loop, new Committed(), config.writerQueue().events(),
                log == null ? () -> 0L : log::nowMicros);
        this.fanout = new ShardFanout(this, label, index, metrics, ring);
        fanout.bind(writer, log != null);
        loop.start(new Passes());
    }

    /** Whether a writer pass is cheap enough to run inline: few subscribers to fan out to. Any thread. */
    private boolean fewSubscribers() {
        return fanout.subscriberCount() <= CoreConfig.INLINE_MAX_SUBSCRIBERS;
    }

    public int index() {
        return index;
    }

    public long incarnation() {
        return incarnation;
    }

    // ------------------------------------------------------------------ publish (any thread)

    /**
     * Queues a publish for the writer. Returns false, taking nothing, when the writer queue is full;
     * the caller then applies its ingress policy: answer {@code overloaded}, or wait for
     * {@link #onWritable} and retry. An empty queue accepts any single publish.
     */
    public boolean tryPublish(PublishRequest request) {
        if (closing) {
            fail(request, FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down"));
            return true;
        }
        if (!inbox.offer(request)) {
            metrics.blocked(Checkpoint.WRITER_QUEUE).increment();
            return false;
        }
        loop.schedule();
        return true;
    }

    /**
     * Runs {@code callback} once the writer queue is at most half full (immediately if it is now). The
     * callback runs on the writer's thread or the caller's; it must be quick.
     */
    public void onWritable(Runnable callback) {
        inbox.onWritable(callback);
    }

    // ------------------------------------------------------------------ subscribe (any thread)

    /**
     * Registers a subscriber starting at {@code request.start()}. Completes with the subscription, or
     * exceptionally with a {@link dev.felix.core.FelixException} ({@code cursor_too_old} /
     * {@code cursor_in_future} naming the offset that is available).
     */
    public CompletableFuture<Subscription> subscribe(SubscribeRequest request) {
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        QueuePolicy policy = request.policy() != null ? request.policy() : defaultPolicy;
        if (!ShardFanout.policyValid(policy, log != null)) {
            result.completeExceptionally(FelixError.of(ErrorCode.BAD_REQUEST,
                    "catch_up needs a log: it is only valid on durable streams").toException());
            return result;
        }
        QueueLimits limits = request.limits() != null ? request.limits() : config.subscriberQueue();
        Subscriber[] holder = new Subscriber[1];
        SubscriberQueue queue = new SubscriberQueue(limits, () -> loop.post(() -> fanout.onSpace(holder[0])));
        Subscriber subscriber = new Subscriber(subscriberIds.getAsLong(), policy, queue);
        holder[0] = subscriber;
        loop.post(() -> register(subscriber, request, result));
        return result;
    }

    void unsubscribe(Subscriber subscriber) {
        loop.post(() -> fanout.remove(subscriber));
    }

    /** Tells a late listener that the subscription already ended. */
    void checkEnded(Subscriber subscriber) {
        FelixError end = subscriber.endError;
        if (end != null && subscriber.listener != null) {
            subscriber.listener.onEnd(end);
        }
    }

    /**
     * Has the ring copy into arrays the lent payloads of the batches it has kept since before {@code cutoffNanos}
     * ({@link System#nanoTime()}; see {@link BatchRing#settleLent}): the broker asks it when the memory its publishes
     * were lent from is held far beyond the bytes in use. Any thread; runs on the writer. Completes with the payload
     * bytes copied (0 once the shard is closing).
     */
    public CompletableFuture<Long> settleLent(long cutoffNanos) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        if (closing) {
            done.complete(0L);
            return done;
        }
        loop.post(() -> done.complete(closing ? 0L : ring.settleLent(cutoffNanos)));
        return done;
    }

    /** A snapshot of offsets and counts. */
    public ShardInfo info() {
        if (log != null && !log.isOpen()) {
            return new ShardInfo(index, -1, -1, incarnation, fanout.subscriberCount(), inbox.events());
        }
        long oldest = log != null ? log.baseOffset() : publishedOldest;
        return new ShardInfo(index, oldest, publishedNext, incarnation, fanout.subscriberCount(), inbox.events());
    }

    /**
     * The shard's info once its log is open (a durable shard opens it on this call if it is not open
     * yet); fails with the log's error if it cannot be opened.
     */
    public CompletableFuture<ShardInfo> load() {
        CompletableFuture<ShardInfo> result = new CompletableFuture<>();
        loop.post(() -> {
            FelixError error = ensureOpen();
            if (error == null) {
                result.complete(info());
            } else {
                result.completeExceptionally(error.toException());
            }
        });
        return result;
    }

    /** The log this shard writes, as the gates know it; null for a shard without a log. */
    public LogRef logRef() {
        return log != null ? ref : null;
    }

    /** Whether the shard keeps a log. */
    public boolean durable() {
        return log != null;
    }

    /**
     * Whether this runtime replaced one that is still closing the log ({@link Stream#reopenShard}): until it has,
     * what needs the log is refused as retryable ({@code unavailable}). Any thread.
     */
    public boolean reopening() {
        return !predecessorClosed.isDone();
    }

    /** Completes once the runtime this one replaced has closed the log. */
    CompletableFuture<Void> predecessorClosed() {
        return predecessorClosed;
    }

    /**
     * Ends every subscription, answers queued publishes and closes the log (after forcing what
     * {@code on_commit} owes); idempotent. The future completes once that has run.
     */
    public CompletableFuture<Void> close() {
        return close(FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
    }

    /** As {@link #close()}; subscriptions end with {@code reason} (a deleted stream: {@code not_found}). */
    public CompletableFuture<Void> close(FelixError reason) {
        closing = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.post(() -> {
            try {
                shutdown(reason);
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    // ------------------------------------------------------------------ writer

    /** The writer's passes: take publishes, merge, append. */
    private final class Passes implements WriterLoop.Work {
        @Override
        public void runOnce() {
            int handled = 0;
            while (fanout.blockedCount() == 0 && handled < MAX_PUBLISHES_PER_RUN && !writer.backlogFull()) {
                PublishRequest first = inbox.poll();
                if (first == null) {
                    break;
                }
                FelixError openError = ensureOpen();
                if (openError != null) {
                    fail(first, openError);
                    continue;
                }
                handled += appendMerged(first);
                loop.runControlTasks(); // subscribes and space signals should not wait behind a long backlog
            }
            inbox.drainWaiters();
        }

        @Override
        public boolean hasWork() {
            return fanout.blockedCount() == 0 && !inbox.isEmpty() && !writer.backlogFull();
        }

        @Override
        public void failed(Throwable cause) {
            fanout.endAll(FelixError.of(ErrorCode.INTERNAL, "shard writer failed: " + cause));
        }
    }

    /** Merges {@code first} with whatever fits behind it and appends the batch; returns its events. */
    private int appendMerged(PublishRequest first) {
        merging.clear();
        merging.add(first);
        int events = first.eventCount();
        long bytes = first.payloadBytes();
        boolean lent = first.lent() != null;
        PublishRequest p;
        while ((p = inbox.peek()) != null
                && (p.lent() != null) == lent // lent memory and arrays do not mix in one batch
                && events + p.eventCount() <= config.maxBatchEvents()
                && bytes + p.payloadBytes() <= config.maxBatchBytes()) {
            inbox.poll();
            merging.add(p);
            events += p.eventCount();
            bytes += p.payloadBytes();
        }
        EventBatch batch;
        PayloadSource records;
        if (lent) {
            LentPayloads region = merging.size() == 1 ? first.lent() : concatLent(merging);
            batch = EventBatch.lent(index, writer.next(), region, events, bytes, System.nanoTime());
            records = log == null ? null : lentRecords.over(region, 0, events);
        } else {
            byte[][] payloads = merging.size() == 1 ? first.payloads() : concat(merging, events);
            batch = new EventBatch(index, writer.next(), payloads, System.nanoTime());
            records = log == null ? null : PayloadSource.of(Arrays.asList(payloads));
        }
        PublishRequest[] requests = merging.toArray(new PublishRequest[0]);
        merging.clear();
        if (!writer.appendFrom(new Appended(batch, requests, bytes), events, records)) {
            batch.releaseLent(); // answered with the error and never visible: nobody else will hold it
        }
        return events;
    }

    /** The sequencer's verdicts, on the writer. */
    private final class Committed implements LogWriter.Owner<Appended> {
        @Override
        public void visible(Appended a) {
            EventBatch batch = a.events();
            ring.add(batch);
            // Before anyone hears of the batch (fanout, acks), so info() never lags an acknowledgement.
            publishedNext = batch.endOffset();
            publishedOldest = ring.oldestOffset(publishedNext);
            metrics.publishedEvents.add(batch.eventCount());
            metrics.publishedBytes.add(a.bytes());
            metrics.batches.increment();
            fanout.fanout(batch);
        }

        @Override
        public void answer(Appended a, FelixError error) {
            long offset = a.events().baseOffset();
            for (PublishRequest r : a.requests()) {
                if (error != null) {
                    tellFailed(r, error); // its payloads are the batch's now
                } else if (r.listener() != null) {
                    r.listener().accepted(index, offset, r.eventCount());
                }
                offset += r.eventCount();
            }
        }

        @Override
        public void dropped(Appended a) {
            a.events().releaseLent(); // never visible, so the ring never took it
        }

        @Override
        public void failed(FelixError error) {
            log.fail(error);
        }

        @Override
        public void recovered(long end) {
            publishedNext = end;
            fanout.recovered(end);
        }
    }

    /**
     * Opens a durable shard's log on first use and takes its tail as the next offset; null when open, else
     * why not (the log cannot be opened, refuses writes after a failed write or fsync, this node may not
     * write it now, this runtime is closing or closed, or the runtime it replaced has not closed the log yet).
     *
     * <p>A closing runtime never opens the log again: it has been replaced (or its stream deleted), and a second
     * open would make two writers of one directory. Requests can still reach it — a publish queued in the moment
     * after it was replaced, or a load asked of it by code that looked it up before — and are refused.
     */
    private FelixError ensureOpen() {
        if (log == null) {
            return null;
        }
        if (log.failure() != null) {
            return log.failure();
        }
        if (closing) { // even with the log open: a closed log is not unset, and its writer must not go on
            return FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down");
        }
        if (log.isOpen()) {
            return null;
        }
        if (!predecessorClosed.isDone()) {
            return FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is reopening (its previous runtime is"
                    + " still closing the log); retry");
        }
        try {
            gates.checkMayOpen(ref); // not the leader here: leave the directory to this node's replica
        } catch (FelixException e) {
            return e.error();
        }
        if (!log.open()) {
            return log.failure();
        }
        GateFactory.Opened opened;
        try {
            opened = gates.open(ref, log.log(), onCommit);
        } catch (FelixException e) {
            log.release(); // not ours to write now; open again on a later use
            return e.error();
        }
        long next = log.tailOffset();
        writer.reset(log.log(), next, opened.committed(), opened.gate());
        publishedNext = writer.committed();
        publishedOldest = log.baseOffset();
        return null;
    }

    private void register(Subscriber s, SubscribeRequest request, CompletableFuture<Subscription> result) {
        if (closing) {
            result.completeExceptionally(
                    FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down").toException());
            return;
        }
        FelixError openError = ensureOpen();
        if (openError != null) {
            result.completeExceptionally(openError.toException());
            return;
        }
        long oldest = log != null ? log.baseOffset() : ring.oldestOffset(writer.committed());
        fanout.register(s, request, oldest, incarnation, result);
    }

    private void shutdown(FelixError reason) {
        writer.force(); // appended publishes waiting for their fsync: force them now so they are answered
        // What the gate could not commit alone (a replicated shard waiting for a majority) is answered now.
        writer.fail(FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " closed before the batch was"
                + " committed (" + reason.message() + "); it may still commit, so a retrying publisher must expect"
                + " a duplicate"));
        fanout.endAll(reason);
        ring.clear(); // its lent memory; what subscribers still hold in their queues they give back themselves
        PublishRequest p;
        while ((p = inbox.poll()) != null) {
            fail(p, FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down"));
        }
        inbox.releaseWaiters();
        writer.closeGate();
        if (log != null) {
            log.close();
        }
    }

    /** A publish that will not be appended: its payloads are given back and its publisher told. */
    private static void fail(PublishRequest request, FelixError error) {
        request.releasePayloads();
        tellFailed(request, error);
    }

    /** Tells {@code request}'s publisher it failed. */
    private static void tellFailed(PublishRequest request, FelixError error) {
        if (request.listener() != null) {
            request.listener().failed(error);
        }
    }

    /** The lent regions of {@code requests}, in order, as one (which takes over each one's reference). */
    private static LentPayloads concatLent(ArrayList<PublishRequest> requests) {
        LentPayloads[] rest = new LentPayloads[requests.size() - 1];
        for (int i = 1; i < requests.size(); i++) {
            rest[i - 1] = requests.get(i).lent();
        }
        return requests.get(0).lent().followedBy(rest);
    }

    private static byte[][] concat(ArrayList<PublishRequest> requests, int events) {
        byte[][] all = new byte[events][];
        int i = 0;
        for (PublishRequest r : requests) {
            byte[][] p = r.payloads();
            System.arraycopy(p, 0, all, i, p.length);
            i += p.length;
        }
        return all;
    }

    @Override
    public String toString() {
        return "Shard[" + label + "]";
    }
}
