package dev.felix.core.stream;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreConfig;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.storage.AppendResult;
import dev.felix.storage.LogRecord;
import dev.felix.storage.ReadResult;
import dev.felix.storage.StorageErrorCode;
import dev.felix.storage.StorageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard of a stream: assigns contiguous offsets from 0 and fans every batch out to its
 * subscribers.
 *
 * <h2>Concurrency: a single writer</h2>
 * All mutable state (tail offset, memory ring, subscriber list, per-subscriber state) is owned by the
 * shard's <em>writer</em>: a task that runs on a shared executor, never on two threads at once, and is
 * rescheduled whenever work arrives. Other threads only enqueue: publishes into the bounded
 * <em>writer queue</em> ({@link #tryPublish}), everything else (subscribe, unsubscribe, "queue has
 * space" signals) as control tasks. There is no lock on the publish path; contention stays within one
 * shard.
 *
 * <h2>Fanout</h2>
 * The writer merges queued publishes into one {@link EventBatch} (up to {@code max_batch_events} /
 * {@code max_batch_bytes}), assigns its offsets, keeps it in the memory ring, and hands the same
 * instance to every live subscriber's queue. A subscriber whose queue is full is handled by its
 * policy:
 * <ul>
 *   <li>{@code drop_new}: the batch is skipped for it; the skipped range becomes a pending gap notice,
 *       queued before the next thing it receives.</li>
 *   <li>{@code drop_old}: the oldest queued items make room and become a gap notice at the head.</li>
 *   <li>{@code block}: the writer stops taking publishes until that subscriber has room; the writer
 *       queue then fills and publishers are slowed down (lossless).</li>
 *   <li>{@code catch_up}: the subscriber is detached from live delivery and fed by offset from
 *       history until it reaches the tail, then rejoins live delivery.</li>
 * </ul>
 * A subscriber that starts in the past is fed the same way ("replay"): by offset from the ring, with
 * a gap notice for anything no longer held; live batches are not given to it until it is at the tail.
 * The switch from replay to live happens on the writer thread between two batches, so nothing is
 * missed or delivered twice.
 */
public final class Shard {

    private static final Logger LOG = LoggerFactory.getLogger(Shard.class);

    /** Publishes one writer run handles before yielding its thread to other shards. */
    static final int MAX_PUBLISHES_PER_RUN = 4096;
    /** Records one log read may return for a replaying subscriber. */
    static final int LOG_READ_MAX_RECORDS = 4096;
    /** Payload bytes one log read may return for a replaying subscriber. */
    static final long LOG_READ_MAX_BYTES = 4L << 20;

    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;

    private final String label;
    private final int index;
    private final long incarnation;
    private final CoreConfig config;
    private final CoreMetrics metrics;
    private final Executor executor;
    private final LongSupplier subscriberIds;
    private final QueuePolicy defaultPolicy;
    /** The shard's log, or null for an ephemeral shard. */
    private final ShardLog log;
    /** Durable shards under {@code on_commit}: fan out and acknowledge only once forced to disk. */
    private final boolean onCommit;
    /** Run the writer on the thread that hands it work instead of the executor (see CoreConfig). */
    private final boolean inline;

    // Multi-producer side.
    private final ConcurrentLinkedQueue<PublishRequest> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicLong inboxEvents = new AtomicLong();
    private final AtomicLong inboxBytes = new AtomicLong();
    private final ConcurrentLinkedQueue<Runnable> control = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Runnable> writableWaiters = new ConcurrentLinkedQueue<>();
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private volatile boolean closing;

    // Writer-owned state.
    /** Offset the next appended event gets. */
    private long next;
    /**
     * End of what subscribers may see: batches below it were fanned out. Equals {@link #next} except
     * while {@code on_commit} batches wait for their fsync.
     */
    private long visible;
    /** {@code on_commit}: batches appended to the log, waiting to be durable, in offset order. */
    private final java.util.ArrayDeque<Pending> awaitingFlush = new java.util.ArrayDeque<>();
    private final BatchRing ring;
    private final ArrayList<Subscriber> subscribers = new ArrayList<>();
    private final ArrayList<PublishRequest> merging = new ArrayList<>();
    private int blockedCount;

    // Published for readers on other threads (info, metrics).
    private volatile long publishedNext;
    private volatile long publishedOldest;
    private volatile int publishedSubscribers;

    /** An appended batch waiting for durability, with the publishes it answers. */
    private record Pending(EventBatch batch, List<PublishRequest> requests, long bytes) {
    }

    Shard(String label, int index, long incarnation, CoreConfig config, CoreMetrics metrics, Executor executor,
            LongSupplier subscriberIds, QueuePolicy defaultPolicy, ShardLog log, boolean onCommit) {
        this.log = log;
        this.onCommit = onCommit;
        this.inline = config.inlineWriters();
        this.label = label;
        this.index = index;
        this.incarnation = incarnation;
        this.config = config;
        this.metrics = metrics;
        this.executor = executor;
        this.subscriberIds = subscriberIds;
        this.defaultPolicy = defaultPolicy;
        this.ring = new BatchRing(config.ringEvents(), config.ringBytes());
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
        int n = request.eventCount();
        long bytes = request.payloadBytes();
        long events = inboxEvents.addAndGet(n);
        long total = inboxBytes.addAndGet(bytes);
        QueueLimits limits = config.writerQueue();
        if (events != n && (events > limits.events() || total > limits.bytes())) {
            inboxEvents.addAndGet(-n);
            inboxBytes.addAndGet(-bytes);
            metrics.blocked(Checkpoint.WRITER_QUEUE).increment();
            return false;
        }
        inbox.add(request);
        schedule();
        return true;
    }

    /**
     * Runs {@code callback} once the writer queue is at most half full (immediately if it is now). The
     * callback runs on the writer's thread or the caller's; it must be quick.
     */
    public void onWritable(Runnable callback) {
        writableWaiters.add(callback);
        if (writerQueueHasRoom()) {
            runWritableWaiters();
        }
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
        if (policy == QueuePolicy.CATCH_UP && defaultPolicy != QueuePolicy.CATCH_UP) {
            result.completeExceptionally(FelixError.of(ErrorCode.BAD_REQUEST,
                    "catch_up needs a log: it is only valid on durable streams").toException());
            return result;
        }
        QueueLimits limits = request.limits() != null ? request.limits() : config.subscriberQueue();
        long id = subscriberIds.getAsLong();
        Subscriber[] holder = new Subscriber[1];
        SubscriberQueue queue = new SubscriberQueue(limits, () -> post(() -> onSpace(holder[0])));
        Subscriber subscriber = new Subscriber(id, policy, queue);
        holder[0] = subscriber;
        post(() -> register(subscriber, request, result));
        return result;
    }

    void unsubscribe(Subscriber subscriber) {
        post(() -> remove(subscriber));
    }

    /** Tells a late listener that the subscription already ended. */
    void checkEnded(Subscriber subscriber) {
        FelixError end = subscriber.endError;
        if (end != null && subscriber.listener != null) {
            subscriber.listener.onEnd(end);
        }
    }

    /** A snapshot of offsets and counts. */
    public ShardInfo info() {
        if (log != null && !log.isOpen()) {
            return new ShardInfo(index, -1, -1, incarnation, publishedSubscribers, inboxEvents.get());
        }
        long oldest = log != null ? log.baseOffset() : publishedOldest;
        return new ShardInfo(index, oldest, publishedNext, incarnation, publishedSubscribers, inboxEvents.get());
    }

    /**
     * The shard's info once its log is open (a durable shard opens it on this call if it is not open
     * yet); fails with the log's error if it cannot be opened.
     */
    public CompletableFuture<ShardInfo> load() {
        CompletableFuture<ShardInfo> result = new CompletableFuture<>();
        post(() -> {
            if (ensureOpen()) {
                result.complete(info());
            } else {
                result.completeExceptionally(log.failure().toException());
            }
        });
        return result;
    }

    /** Whether the shard keeps a log. */
    public boolean durable() {
        return log != null;
    }

    /**
     * Ends every subscription, answers queued publishes and closes the log (after forcing what
     * {@code on_commit} owes); idempotent. The future completes once that has run.
     */
    public CompletableFuture<Void> close() {
        closing = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        post(() -> {
            try {
                shutdown();
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    // ------------------------------------------------------------------ writer

    private void post(Runnable task) {
        control.add(task);
        schedule();
    }

    private void schedule() {
        if (!state.compareAndSet(IDLE, SCHEDULED)) {
            return;
        }
        if (inline) {
            runLoop();
            return;
        }
        try {
            executor.execute(this::runLoop);
        } catch (RejectedExecutionException e) {
            // The broker has stopped the shard threads (close). This caller won the CAS, so it
            // owns the writer: run the remaining work here, so the shutdown still ends the
            // subscriptions and answers every queued publish, and late calls get a clean answer.
            runLoop();
        }
    }

    /**
     * Writer passes while this thread owns the writer. Inline, it loops while work keeps arriving (a loop,
     * not recursion, so the stack stays flat); on a pool it hands the next pass back to the executor so
     * other shards get their turn.
     */
    private void runLoop() {
        while (true) {
            try {
                runOnce();
            } catch (Throwable t) {
                LOG.error("shard {} writer failed; its subscribers are ended", label, t);
                endAll(FelixError.of(ErrorCode.INTERNAL, "shard writer failed: " + t));
            }
            state.set(IDLE);
            boolean work = !control.isEmpty() || (blockedCount == 0 && !inbox.isEmpty() && !flushBacklogFull());
            if (!work || !state.compareAndSet(IDLE, SCHEDULED)) {
                return;
            }
            if (!inline) {
                try {
                    executor.execute(this::runLoop);
                    return;
                } catch (RejectedExecutionException e) {
                    // shutting down: keep going on this thread
                }
            }
        }
    }

    private void runOnce() {
        runControlTasks();
        int handled = 0;
        while (blockedCount == 0 && handled < MAX_PUBLISHES_PER_RUN && !flushBacklogFull()) {
            PublishRequest first = inbox.poll();
            if (first == null) {
                break;
            }
            if (log != null && !ensureOpen()) {
                failPublish(first, log.failure());
                continue;
            }
            handled += appendMerged(first);
            runControlTasks(); // subscribes and space signals should not wait behind a long backlog
        }
        if (!writableWaiters.isEmpty() && writerQueueHasRoom()) {
            runWritableWaiters();
        }
    }

    private void runControlTasks() {
        Runnable task;
        while ((task = control.poll()) != null) {
            task.run();
        }
    }

    /** Merges {@code first} with whatever fits behind it, appends the batch and fans it out. */
    private int appendMerged(PublishRequest first) {
        merging.clear();
        merging.add(first);
        int events = first.eventCount();
        long bytes = first.payloadBytes();
        PublishRequest p;
        while ((p = inbox.peek()) != null
                && events + p.eventCount() <= config.maxBatchEvents()
                && bytes + p.payloadBytes() <= config.maxBatchBytes()) {
            inbox.poll();
            merging.add(p);
            events += p.eventCount();
            bytes += p.payloadBytes();
        }
        byte[][] payloads = merging.size() == 1 ? first.payloads() : concat(merging, events);
        long base = next;
        if (log != null) {
            try {
                AppendResult appended = log.append(payloads, log.nowMicros());
                base = appended.firstOffset();
                next = appended.nextOffset();
            } catch (StorageException e) {
                // Nothing was added: the log cuts a failed write back to the last good record.
                FelixError error = ShardLog.toError(e, "cannot append to the log of " + label);
                LOG.error("{}", error.message());
                if (e.code() == StorageErrorCode.SYNC_FAILED || e.code() == StorageErrorCode.CLOSED) {
                    log.fail(error);
                }
                for (PublishRequest r : merging) {
                    failPublish(r, error);
                }
                merging.clear();
                return events;
            }
        } else {
            next += events;
        }
        EventBatch batch = new EventBatch(index, base, payloads, System.nanoTime());
        if (onCommit) {
            awaitingFlush.add(new Pending(batch, List.copyOf(merging), bytes));
            merging.clear();
            log.flush(batch.endOffset()).whenComplete((v, err) -> post(() -> flushed(err)));
            return events;
        }
        publish(batch, merging, bytes);
        merging.clear();
        return events;
    }

    /** A group-committed flush completed: publish every batch it made durable, in order. */
    private void flushed(Throwable error) {
        if (error != null) {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            FelixError e = FelixError.of(ErrorCode.UNAVAILABLE, "the batch was written to the log of " + label
                    + " but forcing it to disk failed (" + cause.getMessage() + "); it may reappear after a"
                    + " restart, so a retrying publisher must expect a duplicate");
            log.fail(e);
            while (!awaitingFlush.isEmpty()) {
                for (PublishRequest r : awaitingFlush.poll().requests()) {
                    failPublish(r, e);
                }
            }
            return;
        }
        long durable = log.durableOffset();
        while (!awaitingFlush.isEmpty() && awaitingFlush.peek().batch().endOffset() <= durable) {
            Pending p = awaitingFlush.poll();
            publish(p.batch(), p.requests(), p.bytes());
        }
    }

    /**
     * {@code on_commit}: whether appended batches waiting for their fsync already fill the writer
     * queue's limits; the writer stops appending until they are published (they still count against
     * the writer queue, so publishers feel it).
     */
    private boolean flushBacklogFull() {
        return awaitingFlush.size() >= config.writerQueue().events();
    }

    /** Makes a batch visible: into the ring, out to subscribers, acknowledgements back. */
    private void publish(EventBatch batch, List<PublishRequest> requests, long bytes) {
        int events = batch.eventCount();
        ring.add(batch);
        visible = batch.endOffset();
        // Before anyone hears of the batch (fanout, acks), so info() never lags an acknowledgement.
        publishedNext = visible;
        publishedOldest = ring.oldestOffset(visible);
        inboxEvents.addAndGet(-events);
        inboxBytes.addAndGet(-bytes);
        metrics.publishedEvents.add(events);
        metrics.publishedBytes.add(bytes);
        metrics.batches.increment();

        fanout(batch);

        long offset = batch.baseOffset();
        for (int i = 0; i < requests.size(); i++) {
            PublishRequest r = requests.get(i);
            if (r.listener() != null) {
                r.listener().accepted(index, offset, r.eventCount());
            }
            offset += r.eventCount();
        }
    }

    /** Answers a publish that will not be appended, and releases its writer-queue room. */
    private void failPublish(PublishRequest r, FelixError error) {
        inboxEvents.addAndGet(-r.eventCount());
        inboxBytes.addAndGet(-r.payloadBytes());
        fail(r, error);
    }

    /** Opens a durable shard's log on first use and takes its tail as the next offset. */
    private boolean ensureOpen() {
        if (log == null) {
            return true;
        }
        if (log.failure() != null) {
            return false; // could not be opened, or refuses writes after a failed write or fsync
        }
        if (log.isOpen()) {
            return true;
        }
        if (!log.open()) {
            return false;
        }
        next = log.tailOffset();
        visible = next;
        publishedNext = next;
        publishedOldest = next;
        return true;
    }

    private void fanout(EventBatch batch) {
        for (int i = 0; i < subscribers.size(); i++) {
            Subscriber s = subscribers.get(i);
            if (s.mode == Subscriber.Mode.LIVE) {
                deliverLive(s, batch);
            }
        }
    }

    private void deliverLive(Subscriber s, EventBatch batch) {
        SubscriberQueue.Offer offer = s.queue.offer(s.pendingGap, batch, false);
        if (offer != SubscriberQueue.Offer.FULL) {
            accepted(s, batch, offer);
            return;
        }
        switch (s.policy) {
            case DROP_NEW -> {
                s.next = batch.endOffset();
                metrics.dropped(Checkpoint.SUBSCRIBER_QUEUE).add(batch.eventCount());
                if (s.pendingGap == null && s.queue.extendTailGap(batch.baseOffset(), batch.lastOffset(),
                        GapNotice.Reason.QUEUE_OVERFLOW)) {
                    return; // the gap just before this batch is still queued: it now covers this one too
                }
                s.missed(index, batch.baseOffset(), batch.lastOffset(), GapNotice.Reason.QUEUE_OVERFLOW);
                s.queue.requestSpaceSignal(); // so the gap is reported even if nothing else is published
            }
            case DROP_OLD -> {
                if (s.pendingGap != null) {
                    metrics.gapNotices.increment();
                }
                SubscriberQueue.Eviction eviction = s.queue.evictOldestAndOffer(s.pendingGap, batch, index);
                long evicted = eviction.evicted();
                if (evicted > 0) {
                    metrics.gapNotices.increment();
                }
                s.pendingGap = null;
                s.next = batch.endOffset();
                metrics.dropped(Checkpoint.SUBSCRIBER_QUEUE).add(evicted);
                metrics.fannedOutEvents.add(batch.eventCount());
                if (eviction.wake()) {
                    wake(s); // the consumer emptied the queue after the offer found it full
                }
            }
            case BLOCK -> {
                s.blockedOn = batch;
                blockedCount++;
                metrics.blocked(Checkpoint.SUBSCRIBER_QUEUE).increment();
                metrics.writerBlocked.increment();
                s.queue.requestSpaceSignal();
            }
            case CATCH_UP -> {
                s.mode = Subscriber.Mode.REPLAY;
                metrics.catchUpDetached.increment();
                s.queue.requestSpaceSignal();
            }
        }
    }

    /** Bookkeeping after {@code batch} (and the pending gap) went onto {@code s}'s queue. */
    private void accepted(Subscriber s, EventBatch batch, SubscriberQueue.Offer offer) {
        if (s.pendingGap != null) {
            metrics.gapNotices.increment();
            s.pendingGap = null;
        }
        s.next = batch.endOffset();
        metrics.fannedOutEvents.add(batch.eventCount());
        if (offer == SubscriberQueue.Offer.ADDED_WAKE) {
            wake(s);
        }
    }

    /** The subscriber's queue drained to half: resume whatever was waiting for it. */
    private void onSpace(Subscriber s) {
        if (s.closed) {
            return;
        }
        if (s.blockedOn != null) {
            EventBatch batch = s.blockedOn;
            SubscriberQueue.Offer offer = s.queue.offer(s.pendingGap, batch, true);
            if (offer == SubscriberQueue.Offer.FULL) {
                return;
            }
            s.blockedOn = null;
            blockedCount--;
            accepted(s, batch, offer);
        }
        if (s.mode == Subscriber.Mode.REPLAY) {
            pump(s);
        } else {
            flushGap(s);
        }
    }

    /**
     * Feeds a replaying subscriber by offset until its queue is full or it reaches what is visible:
     * from the memory ring when it still holds the offset, else (durable) from the log, else a
     * {@code retention} gap for what is gone.
     */
    private void pump(Subscriber s) {
        while (true) {
            if (s.next >= visible) {
                s.mode = Subscriber.Mode.LIVE; // at the tail: the next batch will be delivered live
                flushGap(s);
                return;
            }
            EventBatch batch = ring.batchFrom(s.next);
            if (batch == null) {
                long ringOldest = ring.oldestOffset(visible);
                if (log != null) {
                    batch = readLog(s, ringOldest);
                    if (batch == null) {
                        if (s.closed) {
                            return; // the read failed and ended the subscription
                        }
                        continue; // a retention gap was recorded; go on from the oldest offset
                    }
                } else {
                    metrics.retentionMissedEvents.add(ringOldest - s.next);
                    s.missed(index, s.next, ringOldest - 1, GapNotice.Reason.RETENTION);
                    s.next = ringOldest;
                    continue;
                }
            }
            SubscriberQueue.Offer offer = s.queue.offer(s.pendingGap, batch, true);
            if (offer == SubscriberQueue.Offer.FULL) {
                return; // the queue will signal when it has drained
            }
            metrics.replayedEvents.add(batch.eventCount());
            accepted(s, batch, offer);
        }
    }

    /**
     * Reads what fits in {@code s}'s queue from the log, from {@code s.next} up to (not including)
     * {@code until}. Returns null after recording a retention gap (the offset was removed) or after
     * ending the subscription (the log could not be read).
     */
    private EventBatch readLog(Subscriber s, long until) {
        long[] room = s.queue.room();
        int maxRecords = (int) Math.max(1, Math.min(Math.min(room[0], until - s.next), LOG_READ_MAX_RECORDS));
        long maxBytes = Math.max(1, Math.min(room[1], LOG_READ_MAX_BYTES));
        ReadResult result;
        try {
            result = log.read(s.next, maxRecords, maxBytes);
        } catch (StorageException e) {
            FelixError error = ShardLog.toError(e, "cannot read the log of " + label + " at offset " + s.next);
            LOG.error("{}; ending that subscription", error.message());
            end(s, error);
            return null;
        }
        if (result instanceof ReadResult.Corrupted corrupted) {
            // Interim (storage branch): as before, a damaged range ends the subscription with `corruption`, but
            // only after every intact record before it was delivered. To become gap{reason: corruption}.
            FelixError error = ShardLog.toError(corrupted.toException(), "cannot read the log of " + label
                    + " at offset " + s.next);
            LOG.error("{}; ending that subscription", error.message());
            end(s, error);
            return null;
        }
        if (result instanceof ReadResult.Trimmed trimmed) {
            long oldest = Math.min(trimmed.oldest(), until);
            metrics.retentionMissedEvents.add(oldest - s.next);
            s.missed(index, s.next, oldest - 1, GapNotice.Reason.RETENTION);
            s.next = oldest;
            return null;
        }
        List<LogRecord> records = ((ReadResult.Records) result).records();
        int n = (int) Math.min(records.size(), until - s.next);
        if (n == 0) {
            FelixError error = FelixError.of(ErrorCode.INTERNAL, "the log of " + label + " returned nothing at offset "
                    + s.next + " below its tail");
            end(s, error);
            return null;
        }
        byte[][] payloads = new byte[n][];
        for (int i = 0; i < n; i++) {
            payloads[i] = records.get(i).payload();
        }
        return new EventBatch(index, records.get(0).offset(), payloads, 0);
    }

    /** Ends one subscription with {@code error}; what is queued stays pollable. */
    private void end(Subscriber s, FelixError error) {
        detach(s);
        s.endError = error;
        SubscriptionListener l = s.listener;
        if (l != null) {
            l.onEnd(error);
        }
    }

    private void flushGap(Subscriber s) {
        if (s.pendingGap != null) {
            SubscriberQueue.Offer offer = s.queue.offerGap(s.pendingGap);
            s.pendingGap = null;
            metrics.gapNotices.increment();
            if (offer == SubscriberQueue.Offer.ADDED_WAKE) {
                wake(s);
            }
        }
    }

    private void register(Subscriber s, SubscribeRequest request, CompletableFuture<Subscription> result) {
        StartPosition start = request.start();
        if (closing) {
            result.completeExceptionally(
                    FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down").toException());
            return;
        }
        if (log != null && !ensureOpen()) {
            result.completeExceptionally(log.failure().toException());
            return;
        }
        long oldest = log != null ? log.baseOffset() : ring.oldestOffset(visible);
        long next = visible; // subscribers see what is visible: durable under on_commit
        if (log == null && start instanceof StartPosition.AtOffset at && request.incarnation() != 0
                && request.incarnation() != incarnation) {
            // The offset belongs to an earlier life of this ephemeral shard: its memory is gone. Say so
            // first (everything from that offset on, in the old numbering), then start at the oldest
            // event of this incarnation.
            s.pendingGap = new GapNotice(index, at.offset(), Long.MAX_VALUE, GapNotice.Reason.INCARNATION);
            start = StartPosition.EARLIEST;
        }
        long from;
        if (start instanceof StartPosition.Latest) {
            from = next;
        } else if (start instanceof StartPosition.Earliest) {
            from = oldest;
        } else {
            from = ((StartPosition.AtOffset) start).offset();
        }
        if (from > next) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_IN_FUTURE,
                    "offset " + from + " is past the tail of " + label + " (next offset " + next + ")",
                    next).toException());
            return;
        }
        if (from < oldest) {
            result.completeExceptionally(new FelixError(ErrorCode.CURSOR_TOO_OLD,
                    "offset " + from + " of " + label + " is no longer retained; the oldest is " + oldest,
                    oldest).toException());
            return;
        }
        s.next = from;
        s.mode = from == next ? Subscriber.Mode.LIVE : Subscriber.Mode.REPLAY;
        subscribers.add(s);
        publishedSubscribers = subscribers.size();
        result.complete(new Subscription(this, s, from));
        if (s.mode == Subscriber.Mode.REPLAY) {
            pump(s);
        } else {
            flushGap(s);
        }
    }

    /** Unsubscribe: detaches the subscriber and discards what is queued for it. */
    private void remove(Subscriber s) {
        detach(s);
        s.queue.clear();
    }

    /** Takes the subscriber out of fanout and releases the writer if it was holding it; idempotent. */
    private void detach(Subscriber s) {
        if (s.closed) {
            return;
        }
        s.closed = true;
        subscribers.remove(s);
        publishedSubscribers = subscribers.size();
        if (s.blockedOn != null) {
            s.blockedOn = null;
            blockedCount--;
        }
    }

    private void shutdown() {
        if (!awaitingFlush.isEmpty()) {
            // Appended publishes waiting for their fsync: force them now so they are acknowledged.
            Throwable error = null;
            try {
                log.awaitDurable(next);
            } catch (RuntimeException e) {
                error = e;
            }
            flushed(error);
        }
        endAll(FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
        PublishRequest p;
        while ((p = inbox.poll()) != null) {
            inboxEvents.addAndGet(-p.eventCount());
            inboxBytes.addAndGet(-p.payloadBytes());
            fail(p, FelixError.of(ErrorCode.UNAVAILABLE, "shard " + label + " is shutting down"));
        }
        runWritableWaiters();
        if (log != null) {
            log.close();
        }
    }

    private void endAll(FelixError error) {
        for (Subscriber s : List.copyOf(subscribers)) {
            end(s, error); // what is already queued stays pollable (SubscriptionListener#onEnd)
        }
    }

    private void wake(Subscriber s) {
        SubscriptionListener l = s.listener;
        if (l != null) {
            l.onDeliveryReady();
        }
    }

    private boolean writerQueueHasRoom() {
        QueueLimits limits = config.writerQueue();
        return inboxEvents.get() <= limits.events() / 2 && inboxBytes.get() <= limits.bytes() / 2;
    }

    private void runWritableWaiters() {
        Runnable w;
        while ((w = writableWaiters.poll()) != null) {
            w.run();
        }
    }

    private static void fail(PublishRequest request, FelixError error) {
        if (request.listener() != null) {
            request.listener().failed(error);
        }
    }

    private static byte[][] concat(List<PublishRequest> requests, int events) {
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
