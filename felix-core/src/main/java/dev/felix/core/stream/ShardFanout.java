package dev.felix.core.stream;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.writer.HistoryRead;
import dev.felix.core.writer.LogWriter;
import dev.felix.storage.LogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscribers of one shard and how each is fed: live from every committed batch, or by offset from
 * history (the memory ring, else the log) while it is behind.
 *
 * <p><b>Threads.</b> Confined to the shard's writer: the shard calls in from its writer loop, and queue
 * space signals arrive as writer tasks. Only the {@link SubscriberQueue}s are shared (with each consumer).
 *
 * <h2>Queue policies when a live subscriber's queue is full</h2>
 * <ul>
 *   <li>{@code drop_new}: the batch is skipped for it; the skipped range becomes a pending gap notice,
 *       queued before the next thing it receives.</li>
 *   <li>{@code drop_old}: the oldest queued items make room and become a gap notice at the head.</li>
 *   <li>{@code block}: the shard stops appending until that subscriber has room; its writer queue then
 *       fills and publishers are slowed (lossless).</li>
 *   <li>{@code catch_up}: the subscriber is detached from live delivery and fed by offset from history
 *       until it reaches the tail, then rejoins live delivery.</li>
 * </ul>
 * A subscriber that starts in the past is fed the same way ("replay"): by offset, with a gap notice for
 * anything no longer held; live batches are not given to it until it is at the tail. The switch from
 * replay to live happens on the writer between two batches, so nothing is missed or delivered twice.
 */
final class ShardFanout {

    private static final Logger LOG = LoggerFactory.getLogger(ShardFanout.class);

    /** Records one log read may return for a replaying subscriber. */
    static final int LOG_READ_MAX_RECORDS = 4096;
    /** Payload bytes one log read may return for a replaying subscriber. */
    static final long LOG_READ_MAX_BYTES = 4L << 20;

    private final Shard shard;
    private final String label;
    private final int index;
    private final CoreMetrics metrics;
    private final BatchRing ring;
    private final ArrayList<Subscriber> subscribers = new ArrayList<>();
    /** The shard's sequencer: committed offsets and (durable) the log history. */
    private LogWriter<?> writer;
    private boolean durable;
    private int blockedCount;
    private volatile int publishedSubscribers;

    ShardFanout(Shard shard, String label, int index, CoreMetrics metrics, BatchRing ring) {
        this.shard = shard;
        this.label = label;
        this.index = index;
        this.metrics = metrics;
        this.ring = ring;
    }

    /** Binds the shard's sequencer; {@code durable} when history beyond the ring lives in its log. */
    void bind(LogWriter<?> writer, boolean durable) {
        this.writer = writer;
        this.durable = durable;
    }

    /** Subscribers holding the writer ({@code block} policy with a full queue). */
    int blockedCount() {
        return blockedCount;
    }

    /** Subscriber count, for any thread. */
    int subscriberCount() {
        return publishedSubscribers;
    }

    /** Offset up to which subscribers may read (the committed end). */
    private long visible() {
        return writer.committed();
    }

    // ------------------------------------------------------------------ live

    /**
     * A batch was committed: offer it to every live subscriber. The batch counts its shares from here on (see
     * {@link EventBatch}): one per queue it goes into, and one held by this loop, so its shared encodings cannot be
     * released while it still goes out.
     */
    void fanout(EventBatch batch) {
        batch.countShares();
        try {
            for (int i = 0; i < subscribers.size(); i++) {
                Subscriber s = subscribers.get(i);
                if (s.mode == Subscriber.Mode.LIVE) {
                    deliverLive(s, batch);
                }
            }
        } finally {
            batch.releaseShare();
        }
    }

    private void deliverLive(Subscriber s, EventBatch batch) {
        if (s.blockedOn != null) {
            // Still waiting for room for an earlier batch (several become visible at once when one commit covers them:
            // a group fsync, a replication round). It reads this one by offset once that one is in, as a replay;
            // this batch used to take the waiting one's place, and the waiting one was lost.
            s.mode = Subscriber.Mode.REPLAY;
            return;
        }
        batch.takeShare(); // the queue's, or the waiting subscriber's; given back below where neither takes it
        SubscriberQueue.Offer offer = s.queue.offer(s.pendingGap, batch, false);
        if (offer != SubscriberQueue.Offer.FULL) {
            accepted(s, batch, offer);
            return;
        }
        switch (s.policy) {
            case DROP_NEW -> {
                batch.releaseShare();
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
                batch.releaseShare(); // it will read the batch again by offset, as a replay
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
    void onSpace(Subscriber s) {
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
     * Records of a reopened log became committed up to {@code end}: live subscribers below it read them from
     * the log before any newer batch (they switch to replay until they reach the tail again).
     */
    void recovered(long end) {
        for (Subscriber s : List.copyOf(subscribers)) { // a failed read may end one
            if (!s.closed && s.mode == Subscriber.Mode.LIVE && s.next < end && s.blockedOn == null) {
                s.mode = Subscriber.Mode.REPLAY;
                pump(s);
            }
        }
    }

    // ------------------------------------------------------------------ history

    /**
     * Feeds a replaying subscriber by offset until its queue is full or it reaches what is visible: from
     * the memory ring when it still holds the offset, else (durable) from the log, else a {@code retention}
     * gap for what is gone.
     */
    private void pump(Subscriber s) {
        while (true) {
            long visible = visible();
            if (s.next >= visible) {
                s.mode = Subscriber.Mode.LIVE; // at the tail: the next batch will be delivered live
                flushGap(s);
                return;
            }
            EventBatch batch = ring.batchFrom(s.next);
            if (batch != null && batch.sharesCounted()) {
                batch = batch.uncounted(); // the live instance counts the shares of its live queues only
            }
            if (batch == null) {
                long ringOldest = ring.oldestOffset(visible);
                if (durable) {
                    batch = readLog(s, ringOldest);
                    if (batch == null) {
                        if (s.closed) {
                            return; // the read failed and ended the subscription
                        }
                        continue; // a gap was recorded; go on after it
                    }
                } else {
                    metrics.retentionMissedEvents.add(ringOldest - s.next);
                    s.missed(index, s.next, ringOldest - 1, GapNotice.Reason.RETENTION);
                    s.next = ringOldest;
                    continue;
                }
            }
            batch.retainLent(); // lent memory: the queue's reference, which its taker gives back
            SubscriberQueue.Offer offer = s.queue.offer(s.pendingGap, batch, true);
            if (offer == SubscriberQueue.Offer.FULL) {
                batch.releaseShare(); // not queued: give the queue's reference back
                return; // the queue will signal when it has drained
            }
            metrics.replayedEvents.add(batch.eventCount());
            accepted(s, batch, offer);
        }
    }

    /**
     * Reads what fits in {@code s}'s queue from the log, from {@code s.next} up to (not including)
     * {@code until}. Returns null after recording a gap (the range is gone) or after ending the
     * subscription (the log could not be read).
     */
    private EventBatch readLog(Subscriber s, long until) {
        long[] room = s.queue.room();
        HistoryRead read = writer.readHistory(s.next, until,
                (int) Math.min(room[0], LOG_READ_MAX_RECORDS), Math.min(room[1], LOG_READ_MAX_BYTES));
        if (read instanceof HistoryRead.Missing missing) {
            long n = missing.to() - missing.from() + 1;
            if (missing.reason() == HistoryRead.Reason.CORRUPTION) {
                metrics.corruptMissedEvents.add(n);
                s.missed(index, missing.from(), missing.to(), GapNotice.Reason.CORRUPTION);
            } else {
                metrics.retentionMissedEvents.add(n);
                s.missed(index, missing.from(), missing.to(), GapNotice.Reason.RETENTION);
            }
            s.next = missing.to() + 1;
            return null;
        }
        if (read instanceof HistoryRead.Failed failed) {
            LOG.error("{}; ending that subscription", failed.error().message());
            end(s, failed.error());
            return null;
        }
        List<LogRecord> records = ((HistoryRead.Records) read).records();
        byte[][] payloads = new byte[records.size()][];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = records.get(i).payload();
        }
        return new EventBatch(index, records.get(0).offset(), payloads, 0);
    }

    // ------------------------------------------------------------------ membership

    /** Registers {@code s} from {@code request.start()}; completes {@code result} (writer thread). */
    void register(Subscriber s, SubscribeRequest request, long oldest, long incarnation,
            CompletableFuture<Subscription> result) {
        StartPosition start = request.start();
        long next = visible(); // subscribers see what is committed
        if (!durable && start instanceof StartPosition.AtOffset at && request.incarnation() != 0
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
                    "offset " + from + " is past the tail of " + label + "; the next offset is " + next,
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
        result.complete(new Subscription(shard, s, from));
        if (s.mode == Subscriber.Mode.REPLAY) {
            pump(s);
        } else {
            flushGap(s);
        }
    }

    /** Unsubscribe: detaches the subscriber and discards what is queued for it. */
    void remove(Subscriber s) {
        detach(s);
        s.queue.clear();
    }

    /** Ends one subscription with {@code error}; what is queued stays pollable. */
    void end(Subscriber s, FelixError error) {
        detach(s);
        s.endError = error;
        SubscriptionListener l = s.listener;
        if (l != null) {
            l.onEnd(error);
        }
    }

    void endAll(FelixError error) {
        for (Subscriber s : List.copyOf(subscribers)) {
            end(s, error); // what is already queued stays pollable (SubscriptionListener#onEnd)
        }
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
            s.blockedOn.releaseShare();
            s.blockedOn = null;
            blockedCount--;
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

    private static void wake(Subscriber s) {
        SubscriptionListener l = s.listener;
        if (l != null) {
            l.onDeliveryReady();
        }
    }

    /** Whether {@code policy} is valid on this shard (catch_up needs a log). */
    static boolean policyValid(QueuePolicy policy, boolean durable) {
        return policy != QueuePolicy.CATCH_UP || durable;
    }
}
