package dev.felix.core.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.core.QueueLimits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The single-writer loop and its inbox: one pass at a time, nothing queued is ever left behind, bounds hold. */
class WriterLoopTest {

    @Test
    void manyProducers_neverRunTwoPassesAtOnce_andEveryItemIsTaken() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            WriterLoop loop = new WriterLoop("stress", pool, false);
            WriterInbox<Long> inbox = new WriterInbox<>(new QueueLimits(1_000_000, 1L << 40), weigher());
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            AtomicLong taken = new AtomicLong();
            AtomicLong controls = new AtomicLong();
            loop.start(new WriterLoop.Work() {
                @Override
                public void runOnce() {
                    int now = running.incrementAndGet();
                    maxRunning.accumulateAndGet(now, Math::max);
                    for (int i = 0; i < 100 && inbox.poll() != null; i++) {
                        taken.incrementAndGet(); // a bounded pass: the rest is left for the next one
                    }
                    running.decrementAndGet();
                }

                @Override
                public boolean hasWork() {
                    return !inbox.isEmpty();
                }

                @Override
                public void failed(Throwable cause) {
                }
            });
            int producers = 4;
            int each = 50_000;
            Thread[] threads = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                threads[p] = new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        assertThat(inbox.offer((long) i)).isTrue();
                        loop.schedule();
                        if (i % 1000 == 0) {
                            loop.post(controls::incrementAndGet);
                        }
                    }
                });
                threads[p].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> taken.get() == (long) producers * each);
            await().atMost(Duration.ofSeconds(5)).until(() -> controls.get() == producers * (each / 1000));
            assertThat(maxRunning.get()).as("never two passes at once").isEqualTo(1);
            assertThat(inbox.events()).isZero();
        } finally {
            pool.shutdown();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void inbox_isBoundedInEventsAndBytes_anEmptyOneTakesAnything_andWaitersRunAtHalf() {
        WriterInbox<Long> inbox = new WriterInbox<>(new QueueLimits(4, 100), weigher());
        assertThat(inbox.offer(1_000L)).as("an empty inbox takes an oversized request").isTrue();
        assertThat(inbox.offer(1L)).as("over the byte limit now").isFalse();
        assertThat(inbox.poll()).isEqualTo(1_000L);
        for (int i = 0; i < 4; i++) {
            assertThat(inbox.offer(10L)).isTrue();
        }
        assertThat(inbox.offer(10L)).as("over the event limit").isFalse();
        AtomicInteger woken = new AtomicInteger();
        inbox.onWritable(woken::incrementAndGet);
        assertThat(woken.get()).as("not at half yet").isZero();
        inbox.poll();
        inbox.drainWaiters();
        assertThat(woken.get()).as("3 of 4: still above half").isZero();
        inbox.poll();
        inbox.drainWaiters();
        assertThat(woken.get()).isEqualTo(1);
        inbox.onWritable(woken::incrementAndGet);
        assertThat(woken.get()).as("room now: runs at once").isEqualTo(2);
    }

    @Test
    void aRejectingExecutor_runsTheWriterOnTheCaller_soShutdownStillAnswersEverything() {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.shutdown();
        WriterLoop loop = new WriterLoop("closing", pool, false);
        AtomicInteger ran = new AtomicInteger();
        loop.start(new WriterLoop.Work() {
            @Override
            public void runOnce() {
            }

            @Override
            public boolean hasWork() {
                return false;
            }

            @Override
            public void failed(Throwable cause) {
            }
        });
        loop.post(ran::incrementAndGet);
        assertThat(ran.get()).isEqualTo(1);
    }

    @Test
    void inline_runsOnTheCallingThreadOnlyWhereThatThreadAndTheComponentAllowIt_elsewhereOnTheExecutor() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "writer-pool"));
        ExecutorService network = Executors.newSingleThreadExecutor(r -> new Thread(r, "network"));
        ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "other"));
        try {
            List<String> ranOn = new CopyOnWriteArrayList<>();
            WriterLoop loop = new WriterLoop("inline", pool, true);
            loop.start(recordingThread("", ranOn));
            network.submit(WriterLoop::allowInlineOnThisThread).get(10, TimeUnit.SECONDS);

            network.submit(loop::schedule).get(10, TimeUnit.SECONDS);
            assertThat(ranOn).as("an inline thread runs the pass itself, before schedule returns")
                    .containsExactly("network");

            other.submit(loop::schedule).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> ranOn.size() == 2);
            assertThat(ranOn.get(1)).as("any other thread hands the pass to the executor").isEqualTo("writer-pool");
            assertThat(WriterLoop.inlineThread()).as("the test thread was never marked").isFalse();

            AtomicBoolean cheap = new AtomicBoolean(false);
            WriterLoop judged = new WriterLoop("judged", pool, cheap::get);
            judged.start(recordingThread("judged:", ranOn));
            network.submit(judged::schedule).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> ranOn.size() == 3);
            assertThat(ranOn.get(2)).as("the component says a pass is expensive now: the executor, even here")
                    .isEqualTo("judged:writer-pool");
            cheap.set(true);
            // The pool's pass may still be ending (its writer not yet idle, so a schedule now is absorbed by it):
            // schedule until one pass ran.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                network.submit(judged::schedule).get(10, TimeUnit.SECONDS);
                return ranOn.size() == 4;
            });
            assertThat(ranOn.get(3)).as("cheap again: inline").isEqualTo("judged:network");

            WriterLoop pooled = new WriterLoop("pooled", pool, false);
            pooled.start(recordingThread("pooled:", ranOn));
            network.submit(pooled::schedule).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> ranOn.size() == 5);
            assertThat(ranOn.get(4)).as("a writer that is not inline uses its executor even on an inline thread")
                    .isEqualTo("pooled:writer-pool");
        } finally {
            pool.shutdownNow();
            network.shutdownNow();
            other.shutdownNow();
        }
    }

    /** Work whose every pass adds {@code prefix} + the running thread's name to {@code ranOn}. */
    private static WriterLoop.Work recordingThread(String prefix, List<String> ranOn) {
        return new WriterLoop.Work() {
            @Override
            public void runOnce() {
                ranOn.add(prefix + Thread.currentThread().getName());
            }

            @Override
            public boolean hasWork() {
                return false;
            }

            @Override
            public void failed(Throwable cause) {
            }
        };
    }

    private static WriterInbox.Weigher<Long> weigher() {
        return new WriterInbox.Weigher<>() {
            @Override
            public int events(Long r) {
                return 1;
            }

            @Override
            public long bytes(Long r) {
                return r;
            }
        };
    }
}
