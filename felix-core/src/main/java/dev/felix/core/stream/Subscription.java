package dev.felix.core.stream;

/**
 * A consumer's handle on one shard subscription.
 *
 * <p>{@link #poll()} must be called from one thread at a time (the consumer); everything else is
 * thread-safe. After {@link SubscriptionListener#onDeliveryReady()} the consumer polls until
 * {@code null}, writing what it gets; it may stop early (e.g. its connection is not writable) and poll
 * again later. Closing is idempotent.
 */
public final class Subscription implements AutoCloseable {

    private final Shard shard;
    private final Subscriber subscriber;
    private final long startOffset;

    Subscription(Shard shard, Subscriber subscriber, long startOffset) {
        this.shard = shard;
        this.subscriber = subscriber;
        this.startOffset = startOffset;
    }

    /** Broker-unique id of this subscription. */
    public long id() {
        return subscriber.id;
    }

    /** Index of the shard within its stream. */
    public int shard() {
        return shard.index();
    }

    /** The offset the subscription started at (resolved from latest/earliest/offset). */
    public long startOffset() {
        return startOffset;
    }

    /** Whether the shard keeps a log (its offsets survive restarts; incarnations do not matter). */
    public boolean durable() {
        return shard.durable();
    }

    /** The shard's incarnation (changes when an ephemeral shard loses its memory). */
    public long incarnation() {
        return shard.incarnation();
    }

    /** Sets who is told about new deliveries; if items are already queued it is told at once. */
    public void listen(SubscriptionListener listener) {
        subscriber.listener = listener;
        if (!subscriber.queue.isEmpty()) {
            listener.onDeliveryReady();
        }
        shard.checkEnded(subscriber);
    }

    /**
     * The next item in order, or null when nothing is queued. Consumer thread only. The consumer owns the share of an
     * {@link EventBatch} it takes and gives it back ({@link EventBatch#releaseShare()}) once it has written it or
     * dropped it.
     */
    public Delivery poll() {
        return subscriber.queue.poll();
    }

    /**
     * The next item without taking it, or null; consumer thread only. A consumer that may not be able to send
     * an item (no flow-control credit) looks first and polls only what it sends.
     */
    public Delivery peek() {
        return subscriber.queue.peek();
    }

    /**
     * {@link #peek()} for a consumer that reads the batch before taking it: a batch returned holds its lent memory
     * until the caller calls {@link EventBatch#releaseLent()} on it (or on a view of it), even if {@code drop_old}
     * evicts it from the queue meanwhile. Consumer only.
     */
    public Delivery peekHeld() {
        return subscriber.queue.peekHeld();
    }

    /** Events queued for this subscriber right now. */
    public long queuedEvents() {
        return subscriber.queue.events();
    }

    /**
     * Stops the subscription; queued items are discarded, here and again on the shard's writer (which may have added
     * some in between), so their shares are given back even when the shard no longer runs.
     */
    @Override
    public void close() {
        subscriber.queue.clear();
        shard.unsubscribe(subscriber);
    }
}
