package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flow control of a publisher ({@code client_publish_queue}): a publish that finds the budget used up waits
 * (block) or is refused at once (drop_new), resumes as soon as an acknowledgement frees room, and is counted.
 */
@Timeout(60)
class InflightBudgetTest {

    private static final long WAIT = TimeUnit.SECONDS.toNanos(20);

    private final ClientMetrics metrics = new ClientMetrics();

    private static long blocked(ClientMetrics m) {
        return m.snapshot().get("felix_client_blocked_total{checkpoint=\"client_publish_queue\"}");
    }

    /** Starts {@code acquire} on another thread and waits until that thread is parked in it. */
    private static CompletableFuture<Boolean> blockedAcquire(InflightBudget budget, long size, int n) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(budget.acquire(size, n, WAIT));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "publisher");
        t.start();
        Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> t.getState() == Thread.State.TIMED_WAITING || f.isDone());
        assertThat(f).as("the publisher waits for room").isNotDone();
        return f;
    }

    @Test
    void withinTheBudget_publishesPassAtOnce() throws Exception {
        InflightBudget budget = new InflightBudget(1_000, 10, metrics);
        for (int i = 0; i < 10; i++) {
            assertThat(budget.acquire(100, 1, 0)).isTrue();
        }
        assertThat(blocked(metrics)).isZero();
    }

    @Test
    void aPublisherBlockedByTheEventBudget_resumesWhenAnAcknowledgementReleasesRoom() throws Exception {
        InflightBudget budget = new InflightBudget(1 << 20, 2, metrics);
        assertThat(budget.acquire(10, 1, 0)).isTrue();
        assertThat(budget.acquire(10, 1, 0)).isTrue();

        CompletableFuture<Boolean> third = blockedAcquire(budget, 10, 1);
        assertThat(blocked(metrics)).isEqualTo(1);

        budget.release(10, 1); // the first acknowledgement arrives
        assertThat(third.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(budget.acquire(10, 1, 0)).as("full again: 2 in flight").isFalse();
    }

    @Test
    void aPublisherBlockedByTheByteBudget_resumesOnlyWhenEnoughBytesAreFree() throws Exception {
        InflightBudget budget = new InflightBudget(100, 1_000, metrics);
        assertThat(budget.acquire(40, 1, 0)).isTrue();
        assertThat(budget.acquire(40, 1, 0)).isTrue();

        CompletableFuture<Boolean> big = blockedAcquire(budget, 50, 1);
        budget.release(10, 0); // 70 in flight: 50 more would be 120
        assertThat(big).as("still 20 bytes short").isNotDone();
        Awaitility.await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> !big.isDone());

        budget.release(30, 1); // 40 in flight
        assertThat(big.get(20, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void dropNew_doesNotWait_andIsRefusedWhileFull() throws Exception {
        InflightBudget budget = new InflightBudget(100, 1, metrics);
        assertThat(budget.acquire(10, 1, 0)).isTrue();

        long t0 = System.nanoTime();
        assertThat(budget.acquire(10, 1, 0)).isFalse();
        assertThat(System.nanoTime() - t0).as("no wait").isLessThan(TimeUnit.SECONDS.toNanos(1));
        assertThat(blocked(metrics)).isEqualTo(1);

        budget.release(10, 1);
        assertThat(budget.acquire(10, 1, 0)).isTrue();
    }

    @Test
    void aWaitThatTimesOut_returnsFalseAfterItsTimeout() throws Exception {
        InflightBudget budget = new InflightBudget(100, 1, metrics);
        budget.acquire(10, 1, 0);

        long t0 = System.nanoTime();
        assertThat(budget.acquire(10, 1, TimeUnit.MILLISECONDS.toNanos(200))).isFalse();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
    }

    @Test
    void onePublishLargerThanTheWholeBudget_passesWhenNothingElseIsInFlight_andHoldsTheRest() throws Exception {
        InflightBudget budget = new InflightBudget(100, 10, metrics);

        assertThat(budget.acquire(5_000, 50, 0)).as("alone: let through").isTrue();
        assertThat(budget.acquire(1, 1, 0)).as("nothing passes beside it").isFalse();

        budget.release(5_000, 50);
        assertThat(budget.acquire(1, 1, 0)).isTrue();
        assertThat(budget.acquire(5_000, 50, 0)).as("not alone: refused").isFalse();
    }

    @Test
    void aBlockedPublisherThatIsInterrupted_stopsWaiting() throws Exception {
        InflightBudget budget = new InflightBudget(100, 1, metrics);
        budget.acquire(10, 1, 0);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                budget.acquire(10, 1, WAIT);
                outcome.complete(null);
            } catch (InterruptedException e) {
                outcome.complete(e);
            }
        });
        t.start();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> t.getState() == Thread.State.TIMED_WAITING);

        t.interrupt();

        assertThat(outcome.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    @Test
    void manyPublishers_neverHaveMoreInFlightThanTheBudget_andAllFinish() throws Exception {
        int limit = 4;
        InflightBudget budget = new InflightBudget(1 << 20, limit, metrics);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<CompletableFuture<Void>> publishers = new ArrayList<>();
        for (int p = 0; p < 8; p++) {
            publishers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 2_000; i++) {
                    try {
                        assertThat(budget.acquire(1, 1, WAIT)).isTrue();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    inFlight.decrementAndGet();
                    budget.release(1, 1);
                }
            }, runnable -> new Thread(runnable).start()));
        }
        CompletableFuture.allOf(publishers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(most.get()).isBetween(1, limit);
        assertThat(budget.acquire(1, limit, 0)).as("everything was released").isTrue();
    }

    @Test
    void nanos_convertsTheRequestTimeout() {
        assertThat(InflightBudget.nanos(Duration.ofMillis(1_500))).isEqualTo(1_500_000_000L);
    }
}
