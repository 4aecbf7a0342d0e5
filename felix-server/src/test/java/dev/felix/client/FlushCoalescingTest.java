package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import io.netty.handler.codec.quic.QuicConnectionStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FrameStream} coalesces flushes: a lone publish is flushed by the next event-loop task, so it is
 * acknowledged with no timer involved; publishes made while a flush is pending join it, so many frames share
 * one flush and one buffer (and so as few QUIC packets as they fill) — here made deterministic by holding the
 * event loop while several threads publish, so every frame is queued behind the one pending flush. The broker's
 * acknowledgements of one burst share a buffer too.
 */
@Timeout(60)
class FlushCoalescingTest {

    private static final StreamRef S = StreamRef.parse("t1/default/coalesce");

    @TempDir
    Path dir;

    @Test
    void aLonePublishIsFlushedByTheTimeItIsAcknowledged() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Publisher p = c.publisher(S);
            FrameStream frames = p.frames();
            assertThat(p.publish(new byte[] {1}).firstOffset()).isZero();
            assertThat(frames.framesWritten.sum()).isEqualTo(1);
            assertThat(frames.flushes.sum()).as("its own flush, not one waiting for company").isEqualTo(1);
            assertThat(p.publish(new byte[] {2}).firstOffset()).isEqualTo(1);
            assertThat(frames.flushes.sum()).isEqualTo(2);
        }
    }

    @Test
    void publishesMadeWhileAFlushIsPendingShareIt() throws Exception {
        int threads = 4;
        int each = 50;
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Publisher p = c.publisher(S);
            FrameStream frames = p.frames();
            long flushesBefore = frames.flushes.sum();
            QuicConnectionStats before = frames.channel().parent().collectStats().get(10, TimeUnit.SECONDS);
            CountDownLatch hold = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            frames.channel().eventLoop().execute(() -> {
                held.countDown();
                try {
                    hold.await(30, TimeUnit.SECONDS); // keeps the flush task queued behind this one
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            try {
                List<Future<List<CompletableFuture<PublishAck>>>> started = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    byte tag = (byte) t;
                    started.add(pool.submit(() -> {
                        List<CompletableFuture<PublishAck>> mine = new ArrayList<>();
                        for (int i = 0; i < each; i++) {
                            mine.add(p.publishAsync(new byte[] {tag, (byte) i}));
                        }
                        return mine;
                    }));
                }
                for (Future<List<CompletableFuture<PublishAck>>> f : started) {
                    acks.addAll(f.get(10, TimeUnit.SECONDS));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> frames.framesWritten.sum() == threads * each);
            } finally {
                hold.countDown();
                pool.shutdown();
            }
            Set<Long> offsets = new TreeSet<>();
            for (CompletableFuture<PublishAck> ack : acks) {
                offsets.add(ack.get(10, TimeUnit.SECONDS).firstOffset());
            }
            assertThat(offsets).as("every publish acknowledged, each at its own offset").hasSize(threads * each);
            assertThat(offsets).first().isEqualTo(0L);
            assertThat(offsets).last().isEqualTo((long) threads * each - 1);
            assertThat(frames.flushes.sum() - flushesBefore).as("one flush carried all %d frames", threads * each)
                    .isEqualTo(1);
            // A QUIC stream sends at least a packet per buffer written: 200 frames written one by one (or 200 acks)
            // would be at least 200 packets each way; merged, they fill about 15 packets (plus ACK-only packets).
            QuicConnectionStats after = frames.channel().parent().collectStats().get(10, TimeUnit.SECONDS);
            assertThat(after.sent() - before.sent()).as("packets carrying %d publishes", threads * each)
                    .isLessThan(threads * each / 2);
            assertThat(after.recv() - before.recv()).as("packets carrying %d acknowledgements", threads * each)
                    .isLessThan(threads * each / 2);
        }
    }
}
