package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** Handler turns queued from many threads each run exactly once, on at most one drainer per pool thread. */
class HandlerPoolTest {

    @Test
    void turnsFromManyThreads_eachRunOnce_onNoMoreThreadsThanThePoolHas() throws Exception {
        int producers = 4;
        int perProducer = 50_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(producers * perProducer);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        try (HandlerPool pool = new HandlerPool(2, "test-handler-")) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * perProducer;
                Thread t = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perProducer; i++) {
                        int id = base + i;
                        pool.execute(() -> {
                            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                            runs.incrementAndGet(id);
                            running.decrementAndGet();
                        });
                    }
                });
                t.start();
                threads.add(t);
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (int i = 0; i < runs.length(); i++) {
                    if (runs.get(i) == 0) {
                        return false;
                    }
                }
                return true;
            });
        }
        for (int i = 0; i < runs.length(); i++) {
            assertThat(runs.get(i)).as("turn " + i).isEqualTo(1);
        }
        assertThat(mostAtOnce.get()).as("turns running at once").isBetween(1, 2);
    }

    @Test
    void aTurnQueuedWhileTheOnlyDrainerFinishes_stillRuns() throws Exception {
        try (HandlerPool pool = new HandlerPool(1, "test-handler-")) {
            for (int round = 0; round < 2_000; round++) {
                CountDownLatch ran = new CountDownLatch(2);
                pool.execute(ran::countDown);
                pool.execute(ran::countDown); // races the drainer's last poll
                assertThat(ran.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("round " + round).isTrue();
            }
        }
    }

    @Test
    void afterClose_turnsAreRefused() {
        HandlerPool pool = new HandlerPool(1, "test-handler-");
        pool.close();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
