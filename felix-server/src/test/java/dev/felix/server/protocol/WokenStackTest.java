package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link WokenStack}: an item is taken once however often it was woken before the consumer looked, items come out
 * oldest wake first, a drained item can be woken again, and under concurrent wakes no wake is lost: whatever a
 * waker did before its wake is seen by the consumer at a later take.
 */
class WokenStackTest {

    static final class Item extends WokenStack.Node<Item> {
        final int id;
        /** Wakes made so far (the waker's "work"), counted before each push. */
        final AtomicLong wakes = new AtomicLong();
        /** The wake count the consumer saw when it last took this item. Consumer thread. */
        long seen;

        Item(int id) {
            this.id = id;
        }
    }

    @Test
    void eachItemIsTakenOnce_oldestWakeFirst_andCanBeWokenAgain() {
        WokenStack<Item> stack = new WokenStack<>();
        Item a = new Item(1);
        Item b = new Item(2);
        Item c = new Item(3);
        assertThat(stack.push(a)).isTrue();
        assertThat(stack.push(b)).isTrue();
        assertThat(stack.push(a)).as("already pending").isFalse();
        assertThat(stack.push(c)).isTrue();

        List<Integer> taken = new ArrayList<>();
        stack.drain(i -> taken.add(i.id));
        assertThat(taken).containsExactly(1, 2, 3);

        taken.clear();
        stack.drain(i -> taken.add(i.id));
        assertThat(taken).as("nothing left after a drain").isEmpty();

        assertThat(stack.push(c)).as("taken, so no longer pending").isTrue();
        assertThat(stack.push(a)).isTrue();
        stack.drain(i -> taken.add(i.id));
        assertThat(taken).containsExactly(3, 1);
    }

    @Test
    void anItemWokenWhileItIsBeingHandedOn_isTakenAgain() {
        WokenStack<Item> stack = new WokenStack<>();
        Item a = new Item(1);
        stack.push(a);
        List<Integer> taken = new ArrayList<>();
        stack.drain(i -> {
            taken.add(i.id);
            assertThat(stack.push(i)).as("the flag is cleared before the sink runs").isTrue();
        });
        assertThat(taken).containsExactly(1);
        stack.drain(i -> taken.add(i.id));
        assertThat(taken).containsExactly(1, 1);
    }

    @Test
    void concurrentWakes_noneIsLost() throws Exception {
        int producers = 3;
        int wakesEach = 200_000;
        Item[] items = new Item[64];
        for (int i = 0; i < items.length; i++) {
            items[i] = new Item(i);
        }
        WokenStack<Item> stack = new WokenStack<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(producers + 1);
        try {
            long[] takes = new long[1];
            Future<?> consumer = pool.submit(() -> {
                start.await();
                while (producing.get()) {
                    stack.drain(i -> {
                        i.seen = i.wakes.get();
                        takes[0]++;
                    });
                    Thread.onSpinWait();
                }
                // Every producer has finished: one more take must leave nothing unseen.
                stack.drain(i -> i.seen = i.wakes.get());
                return null;
            });
            List<Future<?>> wakers = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                wakers.add(pool.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int n = 0; n < wakesEach; n++) {
                        Item item = items[random.nextInt(items.length)];
                        item.wakes.incrementAndGet(); // the work a wake announces
                        stack.push(item);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> w : wakers) {
                w.get(60, TimeUnit.SECONDS);
            }
            producing.set(false);
            consumer.get(60, TimeUnit.SECONDS);

            long total = 0;
            for (Item item : items) {
                assertThat(item.seen).as("item %d: its last wake was seen", item.id).isEqualTo(item.wakes.get());
                total += item.wakes.get();
            }
            assertThat(total).isEqualTo((long) producers * wakesEach);
            assertThat(takes[0]).as("wakes were absorbed while pending").isPositive().isLessThanOrEqualTo(total);
            List<Item> left = new ArrayList<>();
            stack.drain(left::add);
            assertThat(left).as("the consumer's last drain took everything").isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }
}
