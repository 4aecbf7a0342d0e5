package dev.felix.core.testing;

import static org.awaitility.Awaitility.await;

import dev.felix.core.FelixException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.core.ConditionFactory;

/** Bounded waits. Every wait in these tests goes through here: no sleeps, no unbounded gets. */
public final class Await {

    /** Upper bound of any single wait; generous so a loaded CI machine does not flake. */
    public static final Duration LIMIT = Duration.ofSeconds(20);

    private Await() {
    }

    /** Polls on the calling thread (so a condition may poll a subscription), every millisecond. */
    public static ConditionFactory fast() {
        return await().atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).pollInSameThread();
    }

    public static void until(String what, Callable<Boolean> condition) {
        fast().alias(what).until(condition);
    }

    /** The value of a future that must complete normally. */
    public static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError("future failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + LIMIT, e);
        }
    }

    /** The {@link FelixException} a future must fail with. */
    public static FelixException failure(CompletableFuture<?> future) {
        try {
            Object value = future.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure, got " + value);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof FelixException fe) {
                return fe;
            }
            throw new AssertionError("expected a FelixException, got " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + LIMIT, e);
        }
    }
}
