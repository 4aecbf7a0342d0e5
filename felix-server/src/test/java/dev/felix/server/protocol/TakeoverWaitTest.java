package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.stream.ShardInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a create or describe waits for a shard this node leads but is still taking over ({@link Admin#loadLed}): it
 * asks again while the takeover lasts, answers with the loaded shard once it ends, and past its deadline answers
 * with the shard unloaded instead of failing a create that metadata already applied (CI once saw a create fail
 * with "this node is taking over ...; retry" on a slow machine).
 */
@Timeout(30)
class TakeoverWaitTest {

    private static final ShardInfo LOADED = new ShardInfo(0, 0, 7, 1, 0, 0);
    private static final ShardInfo UNLOADED = new ShardInfo(0, -1, -1, 1, 0, 0);
    private static final FelixException TAKING_OVER = new FelixException(ErrorCode.UNAVAILABLE,
            "this node is taking over t1/default/s/0 at epoch 1; retry");

    @Test
    void aTakeoverThatEndsBeforeTheDeadline_answersWithTheLoadedShard() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        Supplier<CompletableFuture<ShardInfo>> load = () -> loads.incrementAndGet() < 4
                ? CompletableFuture.failedFuture(TAKING_OVER) : CompletableFuture.completedFuture(LOADED);

        ShardInfo info = Admin.loadLed(load, () -> true, () -> UNLOADED, "s/0", deadlineIn(Duration.ofSeconds(10)))
                .get(10, TimeUnit.SECONDS);

        assertThat(info).isEqualTo(LOADED);
        assertThat(loads).as("asked again while the takeover lasted").hasValue(4);
    }

    @Test
    void aTakeoverStillUnderWayAtTheDeadline_answersWithTheShardUnloaded_notAnError() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        Supplier<CompletableFuture<ShardInfo>> load = () -> {
            loads.incrementAndGet();
            return CompletableFuture.failedFuture(TAKING_OVER);
        };
        long started = System.nanoTime();

        ShardInfo info = Admin.loadLed(load, () -> true, () -> UNLOADED, "s/0", deadlineIn(Duration.ofMillis(300)))
                .get(10, TimeUnit.SECONDS);

        assertThat(info).isEqualTo(UNLOADED);
        assertThat(System.nanoTime() - started).as("waited for the deadline")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(loads.get()).as("polled until the deadline").isGreaterThan(1);
    }

    @Test
    void anUnavailableShardThatIsNotBeingTakenOver_isTheAnswer_afterOneMoreAsk() {
        AtomicInteger loads = new AtomicInteger();
        CompletableFuture<ShardInfo> answer = Admin.loadLed(() -> {
            loads.incrementAndGet();
            return CompletableFuture.failedFuture(TAKING_OVER);
        }, () -> false, () -> UNLOADED, "s/0", deadlineIn(Duration.ofSeconds(10)));

        assertFailsWith(answer, ErrorCode.UNAVAILABLE);
        assertThat(loads).as("asked once more, in case the takeover ended in between; then answered").hasValue(2);
    }

    @Test
    void aTakeoverThatEndsBetweenTheRefusalAndTheLookAtIt_isAskedOnceMore_andAnswersWithTheLoadedShard()
            throws Exception {
        // The refusal was given while the takeover lasted; by the time it is looked at, the takeover has ended.
        AtomicInteger loads = new AtomicInteger();
        Supplier<CompletableFuture<ShardInfo>> load = () -> loads.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(TAKING_OVER) : CompletableFuture.completedFuture(LOADED);

        ShardInfo info = Admin.loadLed(load, () -> false, () -> UNLOADED, "s/0", deadlineIn(Duration.ofSeconds(10)))
                .get(10, TimeUnit.SECONDS);

        assertThat(info).isEqualTo(LOADED);
        assertThat(loads).hasValue(2);
    }

    @Test
    void anyOtherRefusal_isTheAnswerAtOnce_evenWhileTakingOver() {
        FelixException broken = FelixError.of(ErrorCode.INTERNAL, "log cannot be opened").toException();
        AtomicInteger loads = new AtomicInteger();

        CompletableFuture<ShardInfo> answer = Admin.loadLed(() -> {
            loads.incrementAndGet();
            return CompletableFuture.failedFuture(broken);
        }, () -> true, () -> UNLOADED, "s/0", deadlineIn(Duration.ofSeconds(10)));

        assertFailsWith(answer, ErrorCode.INTERNAL);
        assertThat(loads).hasValue(1);
    }

    private static long deadlineIn(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    private static void assertFailsWith(CompletableFuture<ShardInfo> answer, ErrorCode code) {
        assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(FelixException.class, e -> assertThat(e.error().code()).isEqualTo(code));
    }
}
