package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CatchUp} with the barriers' commits and this node's applying under the test's control: each barrier is a
 * future the test completes with its log index, and "applied here" completes when the test says so.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CatchUpTest {

    /** The barriers sent, in order; the test commits them (completes them with their index) or fails them. */
    private final List<CompletableFuture<Long>> asked = new ArrayList<>();
    /** The indexes waited for here, in order, with the futures the test completes. */
    private final List<Long> awaited = new ArrayList<>();
    private final List<CompletableFuture<Void>> applied = new ArrayList<>();
    private final List<Boolean> outcomes = new ArrayList<>();

    private CatchUp catchUp(Duration timeout) {
        return new CatchUp(() -> {
            CompletableFuture<Long> f = new CompletableFuture<>();
            synchronized (asked) {
                asked.add(f);
            }
            return f;
        }, index -> {
            CompletableFuture<Void> f = new CompletableFuture<>();
            synchronized (applied) {
                awaited.add(index);
                applied.add(f);
            }
            return f;
        }, timeout, Runnable::run, ok -> {
            synchronized (outcomes) {
                outcomes.add(ok);
            }
        });
    }

    @Test
    void aRound_commitsABarrier_thenWaitsUntilThisNodeAppliedItsIndex() {
        CatchUp c = catchUp(Duration.ofSeconds(10));

        CompletableFuture<Void> caught = c.request();
        assertThat(asked).hasSize(1);
        assertThat(caught).isNotDone();

        asked.get(0).complete(42L);
        assertThat(awaited).containsExactly(42L);
        assertThat(caught).as("not before index 42 is applied here").isNotDone();

        applied.get(0).complete(null);
        assertThat(caught).isCompleted();
        assertThat(outcomes).containsExactly(true);
    }

    @Test
    void callersDuringARound_joinTheNextOne_andOneBarrierIsInFlightAtATime() {
        CatchUp c = catchUp(Duration.ofSeconds(10));
        CompletableFuture<Void> first = c.request();
        // Asked while the first barrier is out: it may have been committed before what they look for, so they wait
        // for the next round, which sends another; however many they are, that is one more barrier.
        CompletableFuture<Void> second = c.request();
        CompletableFuture<Void> third = c.request();
        assertThat(asked).hasSize(1);

        asked.get(0).complete(10L);
        applied.get(0).complete(null);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        assertThat(third).isNotDone();
        assertThat(asked).as("the next round starts when the first ends").hasSize(2);

        CompletableFuture<Void> fourth = c.request(); // during the second round: joins a third
        asked.get(1).complete(12L);
        applied.get(1).complete(null);
        assertThat(second).isCompleted();
        assertThat(third).isCompleted();
        assertThat(fourth).isNotDone();
        assertThat(asked).hasSize(3);

        asked.get(2).complete(12L);
        applied.get(2).complete(null);
        assertThat(fourth).isCompleted();
        assertThat(awaited).containsExactly(10L, 12L, 12L);
        assertThat(outcomes).containsExactly(true, true, true);

        c.request(); // idle again: a caller starts a round at once
        assertThat(asked).hasSize(4);
    }

    @Test
    void aBarrierThatFails_completesTheCallersAnyway_andCountsARoundGivenUp() {
        CatchUp c = catchUp(Duration.ofSeconds(10));
        CompletableFuture<Void> caught = c.request();

        asked.get(0).completeExceptionally(new IllegalStateException("no leader"));

        assertThat(caught).isCompleted(); // normally: the caller answers from what it has
        assertThat(awaited).isEmpty();
        assertThat(outcomes).containsExactly(false);
    }

    @Test
    void aRoundThatHearsNothing_givesUpAfterTheTimeout() {
        CatchUp c = catchUp(Duration.ofMillis(200));
        CompletableFuture<Void> caught = c.request();
        CompletableFuture<Void> next = c.request();

        // No barrier is committed: both rounds end at their timeout, the second started when the first gave up.
        assertThat(caught).succeedsWithin(Duration.ofSeconds(10));
        assertThat(next).succeedsWithin(Duration.ofSeconds(10));
        assertThat(asked).hasSize(2);
        synchronized (outcomes) {
            assertThat(outcomes).containsExactly(false, false);
        }
    }

    @Test
    void aRoundWhoseApplyingNeverCatchesUp_givesUpAfterTheTimeout() {
        CatchUp c = catchUp(Duration.ofMillis(200));
        CompletableFuture<Void> caught = c.request();
        asked.get(0).complete(7L); // committed, but index 7 is never applied here

        assertThat(caught).succeedsWithin(Duration.ofSeconds(10));
        assertThat(awaited).containsExactly(7L);
        synchronized (outcomes) {
            assertThat(outcomes).containsExactly(false);
        }
    }
}
