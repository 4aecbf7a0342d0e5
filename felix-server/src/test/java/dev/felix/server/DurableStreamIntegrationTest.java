package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.wire.ErrorCode;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.wire.StreamDescription;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Durable streams end to end over QUIC: restart, resume from disk, retention, corruption, catch-up. */
@Timeout(120)
class DurableStreamIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef ORDERS = StreamRef.parse("t1/default/orders");

    @Test
    void acknowledgedEventsSurviveARestartAndResumeFromAnyOffset() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(ORDERS, StreamSpec.durable(1, "on_commit"));
            Publisher p = c.publisher(ORDERS);
            for (int i = 0; i < 100; i++) {
                assertThat(p.publish(payload(i)).firstOffset()).isEqualTo(i);
            }
        }
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            StreamDescription d = c.streams().describe(ORDERS);
            assertThat(d.durable()).isTrue();
            assertThat(d.fsync()).isEqualTo("on_commit");
            assertThat(d.shardInfo().get(0).nextOffset()).isEqualTo(100);
            assertThat(readRange(c.subscribe(SubscribeOptions.of(ORDERS).fromEarliest()), 0, 100)).isEqualTo(100);
            assertThat(readRange(c.subscribe(SubscribeOptions.of(ORDERS).fromOffset(37)), 37, 100)).isEqualTo(63);
            Subscription latest = c.subscribe(SubscribeOptions.of(ORDERS));
            c.publisher(ORDERS).publish(payload(100));
            Event e = (Event) latest.next(Duration.ofSeconds(10));
            assertThat(e.offset()).isEqualTo(100);
        }
    }

    @Test
    void historyFromDiskJoinsLiveDeliveryWithNoGapAndNoDuplicate_whilePublishingAtFullSpeed() throws Exception {
        int total = 60_000;
        // A tiny memory ring: anything older than 50 events must come from the log.
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_events", "50"));
                FelixClient pubClient = broker.connect();
                FelixClient subClient = broker.connect()) {
            pubClient.streams().create(ORDERS, StreamSpec.durable(1, "periodic"));
            Publisher p = pubClient.publisher(ORDERS);
            CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
                List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
                for (int i = 0; i < total; i += 100) {
                    List<byte[]> batch = new ArrayList<>();
                    for (int j = i; j < i + 100; j++) {
                        batch.add(payload(j));
                    }
                    acks.add(p.publishBatchAsync(null, batch));
                    if (acks.size() > 50) {
                        acks.remove(0).join();
                    }
                }
                acks.forEach(CompletableFuture::join);
            });
            await().until(() -> c(pubClient) > 5_000);
            long middle = c(pubClient) / 2;
            Subscription fromEarliest = subClient.subscribe(SubscribeOptions.of(ORDERS).fromEarliest());
            Subscription fromMiddle = subClient.subscribe(SubscribeOptions.of(ORDERS).fromOffset(middle));
            Subscription fromLatest = subClient.subscribe(SubscribeOptions.of(ORDERS));
            publishing.get();
            p.publish(payload(total)); // so "latest" has at least one event even if it joined at the very end
            assertThat(readRange(fromEarliest, 0, total + 1)).isEqualTo(total + 1);
            assertThat(readRange(fromMiddle, middle, total + 1)).isEqualTo(total + 1 - middle);
            // Latest starts wherever the tail was when it joined; from there it is contiguous to the end.
            Event first = (Event) fromLatest.next(Duration.ofSeconds(10));
            assertThat(first).isNotNull();
            assertThat(readRange(fromLatest, first.offset() + 1, total + 1)).isEqualTo(total - first.offset());
            assertThat(broker.server().broker().metrics().replayedEvents.sum()).isPositive();
        }
    }

    @Test
    void belowRetentionIsCursorTooOldNamingTheOldest_andPastTheTailIsCursorInFuture() throws Exception {
        Map<String, String> small = Map.of("segment_bytes", "4096", "retention_check_ms", "50");
        try (TestBroker broker = TestBroker.start(dir, small); FelixClient c = broker.connect()) {
            c.streams().create(ORDERS, new StreamSpec(1, true, "none", 8192L, null));
            Publisher p = c.publisher(ORDERS);
            for (int i = 0; i < 400; i++) {
                p.publish(new byte[100]);
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> c.streams().describe(ORDERS).shardInfo().get(0).baseOffset() > 0);
            long oldest = c.streams().describe(ORDERS).shardInfo().get(0).baseOffset();
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(ORDERS).fromOffset(0)))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
                        assertThat(e.availableOffset()).isGreaterThanOrEqualTo(oldest);
                    });
            assertThatThrownBy(() -> c.subscribe(SubscribeOptions.of(ORDERS).fromOffset(401)))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_IN_FUTURE);
                        assertThat(e.availableOffset()).isEqualTo(400);
                    });
            // Earliest is the new oldest offset.
            Event e = (Event) c.subscribe(SubscribeOptions.of(ORDERS).fromEarliest()).next(Duration.ofSeconds(10));
            assertThat(e.offset()).isGreaterThan(0);
        }
    }

    @Test
    void aDamagedRecord_reachesSubscribersAsACorruptionGap_andEverythingElseIsServed() throws Exception {
        StreamRef healthy = StreamRef.parse("t1/default/healthy");
        try (TestBroker broker = TestBroker.start(dir, Map.of("segment_bytes", "4096"));
                FelixClient c = broker.connect()) {
            c.streams().create(ORDERS, StreamSpec.durable(1, "on_commit"));
            c.streams().create(healthy, StreamSpec.durable(1, "on_commit"));
            Publisher p = c.publisher(ORDERS);
            for (int i = 0; i < 200; i++) {
                p.publish(payload(i));
            }
            c.publisher(healthy).publish(payload(0));
        }
        // Flip a byte in a record of the first (sealed) segment of the orders log.
        Path segment;
        try (Stream<Path> files = Files.walk(dir.resolve("logs"))) {
            segment = files.filter(f -> f.toString().contains("orders") && f.getFileName().toString()
                    .equals("00000000000000000000.log")).findFirst().orElseThrow();
        }
        flipByte(segment, 200); // the payload of record 3 (records of 16-byte payloads are 44 bytes, from byte 32)
        try (TestBroker broker = TestBroker.start(dir, Map.of("segment_bytes", "4096"));
                FelixClient c = broker.connect()) {
            // Every intact record is served; the damaged one is a gap that says why (loss is never silent).
            Subscription sub = c.subscribe(SubscribeOptions.of(ORDERS).fromEarliest());
            assertThat(readRange(sub, 0, 3)).isEqualTo(3);
            assertThat(sub.next(Duration.ofSeconds(10))).isInstanceOfSatisfying(Gap.class, g -> {
                assertThat(g.reason()).isEqualTo("corruption");
                assertThat(g.from()).isEqualTo(3);
                assertThat(g.to()).isEqualTo(3);
            });
            assertThat(readRange(sub, 4, 200)).as("the records after the damage").isEqualTo(196);
            assertThat(broker.server().broker().metrics().corruptMissedEvents.sum()).isEqualTo(1);
            assertThat(broker.scrapeMetrics()).contains("felix_corruption_missed_events_total 1.0");
            // The stream still takes publishes, and the other stream is untouched.
            assertThat(c.publisher(ORDERS).publish(payload(200)).firstOffset()).isEqualTo(200);
            assertThat(c.publisher(healthy).publish(payload(1)).firstOffset()).isEqualTo(1);
            assertThat(readRange(c.subscribe(SubscribeOptions.of(healthy).fromEarliest()), 0, 2)).isEqualTo(2);
        }
    }

    @Test
    void catchUp_aStalledSubscriberIsFedFromTheLogAndLosesNothing() throws Exception {
        int total = 50_000;
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_events", "100"));
                FelixClient pub = broker.connect()) {
            pub.streams().create(ORDERS, StreamSpec.durable(1, "periodic"));
            FelixClient stalled = broker.connect(b -> b
                    .transport(TestBroker.smallWindows(64 << 10))
                    .receiveQueue(100, 1 << 20, ReceivePolicy.BLOCK));
            Subscription s = stalled.subscribe(SubscribeOptions.of(ORDERS).withQueue(null, 500));
            Publisher p = pub.publisher(ORDERS);
            for (int i = 0; i < total; i += 100) {
                List<byte[]> batch = new ArrayList<>();
                for (int j = i; j < i + 100; j++) {
                    batch.add(payload(j));
                }
                p.publishBatch(batch);
            }
            assertThat(readRange(s, 0, total)).isEqualTo(total);
            assertThat(s.gapCount()).isZero();
            assertThat(broker.server().broker().metrics().catchUpDetached.sum()).as("detached at least once").isPositive();
            stalled.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static long c(FelixClient client) {
        return client.streams().describe(ORDERS).shardInfo().get(0).nextOffset();
    }

    private static byte[] payload(long i) {
        return ByteBuffer.allocate(16).putLong(i).putLong(~i).array();
    }

    /** Reads events {@code from..until-1}, checking offsets and payloads; fails on gaps or disorder. */
    private static long readRange(Subscription s, long from, long until) {
        long next = from;
        while (next < until) {
            Item item = s.next(Duration.ofSeconds(20));
            assertThat(item).as("item at offset " + next).isNotNull();
            assertThat(item).as("no gap expected at " + next).isNotInstanceOf(Gap.class);
            Event e = (Event) item;
            assertThat(e.offset()).isEqualTo(next);
            ByteBuffer b = ByteBuffer.wrap(e.payload());
            assertThat(b.getLong()).isEqualTo(next);
            assertThat(b.getLong()).isEqualTo(~next);
            next++;
        }
        return next - from;
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            int b = f.read();
            f.seek(position);
            f.write(b ^ 0x5A);
        }
    }
}
