package dev.felix.core.stream;

import dev.felix.core.QueuePolicy;

/**
 * A shard's record of one subscriber. All fields but the queue and the listener are owned by the
 * shard's writer thread (single writer, plain fields).
 */
final class Subscriber {

    /** How the subscriber is fed. */
    enum Mode {
        /** Receives each new batch as the writer forms it. */
        LIVE,
        /** Behind the tail: fed from the ring (or the log) by offset until it catches up. */
        REPLAY
    }

    final long id;
    final QueuePolicy policy;
    final SubscriberQueue queue;
    volatile SubscriptionListener listener;

    Mode mode = Mode.LIVE;
    /** Next offset this subscriber should receive. */
    long next;
    /** Missed range not yet queued (queued together with the next batch, or when space frees). */
    GapNotice pendingGap;
    /** {@code block} policy: the batch this subscriber has not taken yet; the writer waits for it. */
    EventBatch blockedOn;
    boolean closed;
    /** Set when the broker ended the subscription, for a listener that attaches afterwards. */
    volatile dev.felix.core.FelixError endError;

    Subscriber(long id, QueuePolicy policy, SubscriberQueue queue) {
        this.id = id;
        this.policy = policy;
        this.queue = queue;
    }

    /** Records a missed range {@code from..to}, merging it with one already pending. */
    void missed(int shard, long from, long to, GapNotice.Reason reason) {
        if (pendingGap != null && pendingGap.to() + 1 == from) {
            pendingGap = pendingGap.extendTo(to);
        } else if (pendingGap == null) {
            pendingGap = new GapNotice(shard, from, to, reason);
        } else {
            throw new IllegalStateException("gaps must be contiguous: " + pendingGap + " then " + from);
        }
    }
}
