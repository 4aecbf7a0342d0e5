package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The reply-flush mark: each scheduling answered once, and never by a flush that came before it. */
class FlushMarkTest {

    @Test
    void oneFlushIsPendingAtATimeAndItsTakeReturnsItsMark() {
        FlushMark mark = new FlushMark();
        assertThat(mark.schedule(100)).isTrue();
        assertThat(mark.schedule(150)).as("already pending: no second flush").isFalse();
        assertThat(mark.take()).isEqualTo(100);
        assertThat(mark.take()).isEqualTo(FlushMark.NOT_SCHEDULED);
    }

    /**
     * The interleaving behind a reply wait of 832 frames in {@code AckBehindWatchTest}: a reply is queued, and
     * before its thread schedules a flush, the flush at the end of a read writes it. That flush must not see the
     * mark of the scheduling an earlier flush answered (100, with 900 frames written since).
     */
    @Test
    void aFlushWithNothingScheduledSeesNoMarkEvenAfterAnEarlierOneWasAnswered() {
        FlushMark mark = new FlushMark();
        assertThat(mark.schedule(100)).isTrue();
        assertThat(mark.take()).as("the scheduled flush").isEqualTo(100);
        // a reply is queued here by a shard writer, which is preempted before scheduling; the read ends at 900
        assertThat(mark.take()).as("the read-end flush writes it, unscheduled").isEqualTo(FlushMark.NOT_SCHEDULED);
        assertThat(mark.schedule(900)).as("the writer schedules at last").isTrue();
        assertThat(mark.take()).as("that flush finds the queue empty and records nothing").isEqualTo(900);
    }

    @Test
    void underContentionEverySchedulingIsAnsweredByExactlyOneTake() throws Exception {
        FlushMark mark = new FlushMark();
        AtomicLong scheduled = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread producer = new Thread(() -> {
                await(start);
                for (long i = 0; i < 200_000; i++) {
                    if (mark.schedule(i)) {
                        scheduled.incrementAndGet();
                    }
                }
            });
            producer.start();
            producers.add(producer);
        }
        long answered = 0;
        start.countDown();
        while (producers.stream().anyMatch(Thread::isAlive)) { // the event loop, flushing as it goes
            if (mark.take() != FlushMark.NOT_SCHEDULED) {
                answered++;
            }
        }
        for (Thread producer : producers) {
            producer.join();
        }
        if (mark.take() != FlushMark.NOT_SCHEDULED) {
            answered++;
        }
        assertThat(answered).isEqualTo(scheduled.get()).isPositive();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
