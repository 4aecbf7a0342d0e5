package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.core.testing.Await;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link EventBatch}: offsets, trimming for a mid-batch start, and encode-once under a race. */
class EventBatchTest {

    static EventBatch batch(long base, String... payloads) {
        byte[][] p = new byte[payloads.length][];
        for (int i = 0; i < p.length; i++) {
            p[i] = payloads[i].getBytes(StandardCharsets.UTF_8);
        }
        return new EventBatch(3, base, p, 42);
    }

    static List<String> strings(EventBatch b) {
        List<String> out = new ArrayList<>();
        for (byte[] p : b.payloads()) {
            out.add(new String(p, StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void offsets_describeTheInclusiveAndExclusiveEnds() {
        EventBatch b = batch(10, "a", "bb", "ccc");

        assertThat(b.baseOffset()).isEqualTo(10);
        assertThat(b.lastOffset()).isEqualTo(12);
        assertThat(b.endOffset()).isEqualTo(13);
        assertThat(b.eventCount()).isEqualTo(3);
        assertThat(b.payloadBytes()).isEqualTo(6);
        assertThat(b.shard()).isEqualTo(3);
    }

    @Test
    void constructor_noEvents_isRejected() {
        assertThatThrownBy(() -> new EventBatch(0, 0, new byte[0][], 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void from_midBatch_startsExactlyAtTheOffsetAndSharesThePayloads() {
        EventBatch b = batch(10, "a", "bb", "ccc", "dddd");

        EventBatch t = b.from(12);

        assertThat(t.baseOffset()).isEqualTo(12);
        assertThat(t.endOffset()).isEqualTo(14);
        assertThat(t.eventCount()).isEqualTo(2);
        assertThat(t.payloadBytes()).isEqualTo(7);
        assertThat(strings(t)).containsExactly("ccc", "dddd");
        assertThat(t.payload(0)).isSameAs(b.payload(2)); // no copy of the bytes
        assertThat(t.payloadArray()).isSameAs(b.payloadArray());
        assertThat(t.arrayFrom()).isEqualTo(2);
        assertThat(t.publishNanos()).isEqualTo(b.publishNanos());
        assertThat(t.from(13).payloadBytes()).isEqualTo(4);
        assertThatThrownBy(() -> t.payload(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> t.payload(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void from_atOrBeforeTheBase_isTheSameInstance_andPastTheEndIsRejected() {
        EventBatch b = batch(10, "a", "b");

        assertThat(b.from(10)).isSameAs(b);
        assertThat(b.from(3)).isSameAs(b);
        assertThatThrownBy(() -> b.from(12)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void first_isTheHeadOfTheBatch_andFromThenGivesTheRest() {
        EventBatch b = batch(10, "a", "bb", "ccc", "dddd");

        EventBatch head = b.first(2);

        assertThat(head.baseOffset()).isEqualTo(10);
        assertThat(head.endOffset()).isEqualTo(12);
        assertThat(head.payloadBytes()).isEqualTo(3);
        assertThat(strings(head)).containsExactly("a", "bb");
        assertThat(head.payload(0)).isSameAs(b.payload(0));
        assertThat(strings(b.from(head.endOffset()))).containsExactly("ccc", "dddd");
        assertThat(strings(b.from(11).first(2))).containsExactly("bb", "ccc");
        assertThat(b.first(4)).isSameAs(b);
        assertThat(b.first(9)).isSameAs(b);
        assertThatThrownBy(() -> b.first(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void payloads_areReadOnly() {
        EventBatch b = batch(0, "a", "b");

        assertThatThrownBy(() -> b.payloads().set(0, new byte[0])).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void encoded_sequentialCallers_encodeOncePerSlot() {
        EventBatch b = batch(0, "a");
        AtomicInteger calls = new AtomicInteger();

        Object first = b.encoded(0, x -> "slot0#" + calls.incrementAndGet());
        Object again = b.encoded(0, x -> "slot0#" + calls.incrementAndGet());
        Object other = b.encoded(1, x -> "slot1#" + calls.incrementAndGet());

        assertThat(first).isEqualTo("slot0#1").isSameAs(again);
        assertThat(other).isEqualTo("slot1#2");
        assertThat(calls).hasValue(2);
    }

    /**
     * Many threads ask for the same slots of fresh batches at once. The encoder of each slot must run
     * once (encode once, fan out many), and every thread must get that one result. To make the race
     * real, the first encoder of a slot waits (bounded) until every thread has arrived at the call.
     */
    @Test
    void encoded_racingThreads_encodeEachSlotExactlyOnce() throws Exception {
        int threads = 8;
        int rounds = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < rounds; round++) {
                EventBatch b = batch(round, "payload-" + round);
                AtomicInteger[] calls = {new AtomicInteger(), new AtomicInteger()};
                AtomicInteger arrived = new AtomicInteger();
                CountDownLatch start = new CountDownLatch(1);
                List<CompletableFuture<Object[]>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    results.add(CompletableFuture.supplyAsync(() -> {
                        awaitQuietly(start);
                        arrived.incrementAndGet();
                        Object[] got = new Object[EventBatch.ENCODING_SLOTS];
                        for (int slot = 0; slot < EventBatch.ENCODING_SLOTS; slot++) {
                            int s = slot;
                            got[slot] = b.encoded(slot, x -> {
                                calls[s].incrementAndGet();
                                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                                while (arrived.get() < threads && System.nanoTime() < deadline) {
                                    Thread.onSpinWait(); // widen the window in which others call encoded()
                                }
                                return new Object();
                            });
                        }
                        return got;
                    }, pool));
                }
                start.countDown();
                List<Object[]> all = new ArrayList<>();
                for (CompletableFuture<Object[]> f : results) {
                    all.add(Await.get(f));
                }
                for (int slot = 0; slot < EventBatch.ENCODING_SLOTS; slot++) {
                    assertThat(calls[slot]).as("encoder runs of slot %d in round %d", slot, round).hasValue(1);
                    for (Object[] got : all) {
                        assertThat(got[slot]).isSameAs(all.get(0)[slot]);
                    }
                }
                assertThat(all.get(0)[0]).isNotSameAs(all.get(0)[1]);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void encoded_encoderThrows_nothingIsCachedAndTheNextCallerEncodes() {
        EventBatch b = batch(0, "a");

        assertThatThrownBy(() -> b.encoded(0, x -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class);

        assertThat((Object) b.encoded(0, x -> "ok")).isEqualTo("ok");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("start latch");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
