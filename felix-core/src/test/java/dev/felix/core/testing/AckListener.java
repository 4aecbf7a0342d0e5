package dev.felix.core.testing;

import dev.felix.core.FelixError;
import dev.felix.core.stream.PublishListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link PublishListener} that completes a future and counts how often it was called, so a test can
 * check the "exactly once" contract as well as the outcome.
 */
public final class AckListener implements PublishListener {

    public final CompletableFuture<Ack> future = new CompletableFuture<>();
    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public void accepted(int shard, long firstOffset, int count) {
        calls.incrementAndGet();
        future.complete(new Ack(shard, firstOffset, count));
    }

    @Override
    public void failed(FelixError error) {
        calls.incrementAndGet();
        future.completeExceptionally(error.toException());
    }

    /** Times the shard called this listener (accepted or failed). */
    public int calls() {
        return calls.get();
    }

    public boolean isDone() {
        return future.isDone();
    }
}
