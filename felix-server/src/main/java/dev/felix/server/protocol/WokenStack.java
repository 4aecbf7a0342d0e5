package dev.felix.server.protocol;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The items woken since their consumer last looked: pushed from any number of threads, taken by one consumer
 * thread. It is linked through the items themselves (a Treiber stack of {@link Node}s), so a wake allocates
 * nothing, and an item is on it at most once (its pending flag), however often it is woken meanwhile.
 *
 * <p><b>No wake is lost.</b> A push that finds its item pending does nothing: the consumer has not yet cleared
 * the flag, and it clears it before it hands the item on, so whatever the waker did before waking is visible
 * to the consumer when it looks. A wake after the clear pushes the item again.
 *
 * <p>Why not a {@code ConcurrentLinkedQueue}: a shard's writer wakes every subscription it feeds once per batch,
 * and with 10,000 subscriptions a queue node per wake was nearly all the writer's allocation (and, through the
 * collector's need for fresh memory, a fifth of the broker's CPU in page clearing).
 *
 * @param <T> the item type, which carries its own link
 */
final class WokenStack<T extends WokenStack.Node<T>> {

    /** What an item needs to be on a {@link WokenStack}: its pending flag and its link. */
    abstract static class Node<T> {
        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<Node> PENDING =
                AtomicIntegerFieldUpdater.newUpdater(Node.class, "pending");

        /** 1 while on the stack (or taken but not yet handed on). */
        volatile int pending;
        /**
         * The item pushed before this one. Written by the pushing thread (which owns it once it set the flag)
         * and by the consumer while it takes the stack; published by the stack's compare-and-set.
         */
        T below;
    }

    private final AtomicReference<T> top = new AtomicReference<>();

    /**
     * Puts {@code item} on the stack unless it is already pending. Any thread.
     *
     * @return whether it was pushed (false: a wake already pending covers this one)
     */
    boolean push(T item) {
        // Read first: a failed compare-and-set still takes the cache line from the consumer.
        if (item.pending != 0 || !Node.PENDING.compareAndSet(item, 0, 1)) {
            return false;
        }
        T t;
        do {
            t = top.get();
            item.below = t;
        } while (!top.compareAndSet(t, item));
        return true;
    }

    /**
     * Takes every item on the stack and hands each to {@code sink}, oldest push first, after clearing its
     * pending flag. Consumer thread only.
     */
    void drain(Consumer<? super T> sink) {
        T item = top.getAndSet(null);
        // Reverse first: nobody else writes an item's link until its flag is cleared.
        T oldestFirst = null;
        while (item != null) {
            T below = item.below;
            item.below = oldestFirst;
            oldestFirst = item;
            item = below;
        }
        while (oldestFirst != null) {
            T next = oldestFirst.below;
            oldestFirst.below = null;
            oldestFirst.pending = 0; // before the sink looks at the item, so a later wake pushes it again
            sink.accept(oldestFirst);
            oldestFirst = next;
        }
    }
}
