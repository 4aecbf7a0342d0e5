package dev.felix.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.QueueLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sanity suite every bounded writer-to-consumer queue of the core passes (after JCTools' QueueSanityTest),
 * run against a matrix of limits: FIFO order, the event and byte bounds, "an empty queue takes any item",
 * the consumer's wake-up (only on empty to non-empty), the producer's space signal (once, at half, outside
 * the monitor), {@code clear}, and one producer and one consumer thread handing over every item once, in
 * order, with what the producer wrote before the offer visible to the consumer.
 *
 * <p>A subclass per queue ({@code SubscriberQueueSanityTest}, {@code WatcherQueueSanityTest}) adapts its queue
 * to {@link QueueUnderTest} and adds the tests of what only that queue has (gap notices and {@code drop_old}
 * eviction; snapshots and the end marker).
 */
public abstract class QueueSanitySuite {

    /** What an offer did, in the suite's terms (each queue has its own enum of the same three values). */
    public enum Offered {
        ADDED_WAKE, ADDED, FULL
    }

    /**
     * One queue seen through the operations both queues have. Items carry a sequence number and weigh a whole
     * number of units ({@link #unitWeight()} bytes each, as the queue counts bytes); the content of an item is
     * derived from its sequence number when it is made and checked when it is polled.
     */
    public interface QueueUnderTest {
        /** Offers one event with sequence number {@code seq}, weighing {@code units} units. */
        Offered offer(long seq, int units, boolean signalWhenSpace);

        /** The next item's sequence number (its content checked), or -1 when the queue is empty. Consumer only. */
        long poll();

        /** Room left as {events, bytes}; an empty queue reports room for at least one item. */
        long[] room();

        boolean isEmpty();

        void requestSpaceSignal();

        void clear();
    }

    /** A new queue with these limits whose space listener is {@code spaceListener}. */
    protected abstract QueueUnderTest newQueue(QueueLimits limits, Runnable spaceListener);

    /** Bytes one unit of weight counts for in this queue (items weigh whole units). */
    protected abstract long unitWeight();

    /** One configuration of the matrix: limits in events and in units of weight. */
    public record Spec(String name, int events, long units) {
        /** Items of one unit that fit. */
        public int capacity() {
            return (int) Math.min(events, units);
        }

        /** Largest number of one-unit items at which the queue counts as "drained to half". */
        public int half() {
            return (int) Math.min(events / 2, units / 2);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    public static Stream<Spec> specs() {
        return Stream.of(
                new Spec("capacity 1", 1, 1 << 16),
                new Spec("capacity 2", 2, 1 << 16),
                new Spec("capacity 3", 3, 1 << 16),
                new Spec("capacity 8", 8, 1 << 16),
                new Spec("capacity 64", 64, 1 << 16),
                new Spec("byte-bound 5", 1_000, 5),
                new Spec("byte-bound 16", 1_000, 16));
    }

    private QueueLimits limits(Spec spec) {
        return new QueueLimits(spec.events(), spec.units() * unitWeight());
    }

    /** A queue whose space listener counts its runs. */
    private final class Counted {
        final AtomicInteger signals = new AtomicInteger();
        final QueueUnderTest queue;

        Counted(QueueLimits limits) {
            queue = newQueue(limits, signals::incrementAndGet);
        }
    }

    private Counted counted(Spec spec) {
        return new Counted(limits(spec));
    }

    /** Fills an empty queue with one-unit items 0..n-1. */
    private static void fill(QueueUnderTest q, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(q.offer(i, 1, false)).as("item %d", i).isEqualTo(i == 0 ? Offered.ADDED_WAKE : Offered.ADDED);
        }
    }

    private static List<Long> drain(QueueUnderTest q) {
        List<Long> out = new ArrayList<>();
        long seq;
        while ((seq = q.poll()) >= 0) {
            out.add(seq);
        }
        return out;
    }

    // ------------------------------------------------------------------ order and bounds

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void poll_returnsItemsInOfferOrder_andTheRoomComesBack(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.capacity());

        assertThat(drain(c.queue)).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, spec.capacity()).boxed().toList());
        assertThat(c.queue.poll()).isEqualTo(-1);
        assertThat(c.queue.isEmpty()).isTrue();
        assertThat(c.queue.room()).containsExactly(spec.events(), spec.units() * unitWeight());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_full_refusesWithoutChangingTheQueue_thenAcceptsAfterAPoll(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.capacity());
        long[] roomWhenFull = c.queue.room();

        assertThat(c.queue.offer(spec.capacity(), 1, false)).isEqualTo(Offered.FULL);
        assertThat(c.queue.room()).containsExactly(roomWhenFull);
        assertThat(c.queue.poll()).isZero();
        assertThat(c.queue.offer(spec.capacity(), 1, false)).isEqualTo(spec.capacity() == 1 ? Offered.ADDED_WAKE
                : Offered.ADDED);

        List<Long> rest = drain(c.queue);
        assertThat(rest).hasSize(spec.capacity()).last().isEqualTo((long) spec.capacity());
        assertThat(rest).doesNotHaveDuplicates().isSorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void room_countsEventsAndBytesOfWhatIsQueued(Spec spec) {
        Counted c = counted(spec);
        int n = spec.capacity();
        fill(c.queue, n);

        assertThat(c.queue.room()).containsExactly(spec.events() - n, (spec.units() - n) * unitWeight());
        c.queue.poll();
        assertThat(c.queue.room()).containsExactly(spec.events() - n + 1, (spec.units() - n + 1) * unitWeight());
    }

    @Test
    void offer_byteBoundReached_refusesEvenWithEventRoom() {
        QueueUnderTest q = newQueue(new QueueLimits(100, 10 * unitWeight()), () -> {
        });
        assertThat(q.offer(0, 4, false)).isEqualTo(Offered.ADDED_WAKE);
        assertThat(q.offer(1, 4, false)).isEqualTo(Offered.ADDED);

        assertThat(q.offer(2, 3, false)).as("11 units > 10").isEqualTo(Offered.FULL);
        assertThat(q.offer(2, 2, false)).as("exactly 10 units").isEqualTo(Offered.ADDED);
        assertThat(q.room()).containsExactly(97, 0);
        assertThat(q.offer(3, 1, false)).isEqualTo(Offered.FULL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_emptyQueue_acceptsAnItemHeavierThanTheByteBound_thenNothingUntilItIsTaken(Spec spec) {
        Counted c = counted(spec);
        int heavy = (int) Math.min(spec.units() + 3, 1 << 17);

        assertThat(c.queue.offer(0, heavy, false)).isEqualTo(Offered.ADDED_WAKE);
        assertThat(c.queue.offer(1, 1, false)).isEqualTo(Offered.FULL);
        assertThat(c.queue.poll()).isZero();
        assertThat(c.queue.offer(1, 1, false)).isEqualTo(Offered.ADDED_WAKE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void offer_wakesTheConsumerOnlyOnEmptyToNonEmpty(Spec spec) {
        Counted c = counted(spec);
        assertThat(c.queue.offer(0, 1, false)).isEqualTo(Offered.ADDED_WAKE);
        if (spec.capacity() > 1) {
            assertThat(c.queue.offer(1, 1, false)).isEqualTo(Offered.ADDED);
        }
        drain(c.queue);
        assertThat(c.queue.offer(2, 1, false)).isEqualTo(Offered.ADDED_WAKE);
    }

    // ------------------------------------------------------------------ space signal

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void spaceListener_afterARefusedOffer_firesOnceWhenDrainedToHalf(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.capacity());
        assertThat(c.queue.offer(spec.capacity(), 1, true)).isEqualTo(Offered.FULL);
        assertThat(c.signals).hasValue(0);

        for (int left = spec.capacity() - 1; left >= 0; left--) {
            assertThat(c.queue.poll()).isGreaterThanOrEqualTo(0);
            assertThat(c.signals).as("signals with %d items left", left).hasValue(left <= spec.half() ? 1 : 0);
        }
        assertThat(c.queue.poll()).isEqualTo(-1);
        assertThat(c.signals).as("a signal is one-shot").hasValue(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void spaceListener_refusedWithoutAsking_neverFires(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.capacity());
        assertThat(c.queue.offer(spec.capacity(), 1, false)).isEqualTo(Offered.FULL);

        drain(c.queue);
        c.queue.poll();

        assertThat(c.signals).hasValue(0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void requestSpaceSignal_firesAtOnceAtOrBelowHalf_elseOnceWhenDrainedThere(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.half());
        c.queue.requestSpaceSignal();
        assertThat(c.signals).as("already at half").hasValue(1);

        drain(c.queue);
        assertThat(c.signals).as("nothing was pending").hasValue(1);

        fill(c.queue, spec.capacity());
        c.queue.requestSpaceSignal();
        assertThat(c.signals).as("above half: deferred").hasValue(spec.capacity() <= spec.half() ? 2 : 1);
        drain(c.queue);
        assertThat(c.signals).hasValue(2);
    }

    @Test
    void spaceListener_runsOutsideTheQueuesMonitor() {
        CompletableFuture<long[]> seenFromAnotherThread = new CompletableFuture<>();
        QueueUnderTest[] holder = new QueueUnderTest[1];
        holder[0] = newQueue(new QueueLimits(2, 1 << 20), () -> {
            // Another thread takes the queue's monitor (room() is synchronized); if poll() still held it, this
            // would time out.
            CompletableFuture<long[]> f = CompletableFuture.supplyAsync(() -> holder[0].room());
            try {
                seenFromAnotherThread.complete(f.get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                seenFromAnotherThread.completeExceptionally(e);
            }
        });
        fill(holder[0], 2);
        assertThat(holder[0].offer(2, 1, true)).isEqualTo(Offered.FULL);

        holder[0].poll();

        assertThat(Await.get(seenFromAnotherThread)[0]).as("room in events, read during the signal").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void clear_emptiesTheQueueAndCancelsAPendingSignal(Spec spec) {
        Counted c = counted(spec);
        fill(c.queue, spec.capacity());
        c.queue.offer(spec.capacity(), 1, true);

        c.queue.clear();

        assertThat(c.queue.isEmpty()).isTrue();
        assertThat(c.queue.poll()).isEqualTo(-1);
        assertThat(c.queue.room()).containsExactly(spec.events(), spec.units() * unitWeight());
        assertThat(c.signals).hasValue(0);
    }

    // ------------------------------------------------------------------ two threads

    /**
     * One producer (the writer) and one consumer, as in production: the producer waits for the space signal
     * when refused, the consumer for the wake-up when empty. Every item arrives once, in order, with the bytes
     * the producer wrote into it before the offer visible to the consumer (poll checks them).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void producerAndConsumerThreads_everyItemArrivesOnceInOrder(Spec spec) {
        Semaphore space = new Semaphore(0);
        Semaphore wake = new Semaphore(0);
        QueueUnderTest q = newQueue(limits(spec), space::release);
        long total = 20_000;

        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            Random random = new Random(spec.events() * 31L + spec.units());
            for (long seq = 0; seq < total; seq++) {
                int units = 1 + random.nextInt(2);
                Offered o;
                while ((o = q.offer(seq, units, true)) == Offered.FULL) {
                    acquire(space);
                }
                if (o == Offered.ADDED_WAKE) {
                    wake.release();
                }
            }
        });

        long next = 0;
        while (next < total) {
            long seq = q.poll();
            if (seq < 0) {
                acquire(wake);
                continue;
            }
            assertThat(seq).isEqualTo(next);
            next++;
        }
        Await.get(producer);
        assertThat(q.poll()).isEqualTo(-1);
    }

    private static void acquire(Semaphore s) {
        try {
            if (!s.tryAcquire(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no signal within " + Await.LIMIT + " (lost wake-up)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
