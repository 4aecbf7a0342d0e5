package dev.felix.demos.common;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/** How a demo publisher waits on a publish that backpressure holds back, without outliving its run. */
public final class BackpressureWait {

    private BackpressureWait() {
    }

    /**
     * Waits for {@code f}, checking {@code abandoned} every 100 ms so a publisher blocked by a stalled
     * consumer ({@code block} policy) still stops when the run gives up on it. True when {@code f}
     * completed normally; false when it failed, the wait was interrupted, or the run was abandoned.
     */
    public static boolean await(CompletableFuture<?> f, BooleanSupplier abandoned) {
        while (!abandoned.getAsBoolean()) {
            try {
                f.get(100, TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                // still held back by backpressure
            } catch (ExecutionException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
