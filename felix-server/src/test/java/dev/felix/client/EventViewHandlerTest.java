package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.server.TestBroker;
import dev.felix.wire.QueuePolicy;
import dev.felix.wire.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link EventViewHandler} reads each event where it arrived, in the received frame, on the connection's I/O
 * thread: no copy and no receive queue ({@code felix_client_events_read_in_place_total} counts them), with credit
 * still flowing back; what had to wait in the queue (events, a gap notice) comes first and in order; a handler that
 * throws ends its subscription only.
 */
@Timeout(120)
class EventViewHandlerTest {

    private static final StreamRef LIVE = StreamRef.parse("t1/default/view-live");
    private static final StreamRef LOG = StreamRef.parse("t1/default/view-log");
    private static final String READ_IN_PLACE = "felix_client_events_read_in_place_total";

    @TempDir
    Path dir;

    /** What the handler saw, written on the I/O thread and read by the test: guarded by itself. */
    private static final class Seen {
        final List<Long> offsets = new ArrayList<>();
        final List<Integer> values = new ArrayList<>();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        boolean allReadOnly = true;

        synchronized void add(EventView view) {
            ByteBuffer p = view.payload();
            allReadOnly &= p.isReadOnly();
            offsets.add(view.offset());
            values.add(p.getInt(p.position()));
            threads.add(Thread.currentThread().getName());
        }

        synchronized int size() {
            return offsets.size();
        }
    }

    @Test
    void readsEveryEventInPlace_inOrder_andKeepsGrantingCreditBeyondItsWindow() throws Exception {
        // A queue of 8 events gives each channel a credit window of 4: without credit for events read in place,
        // the broker would stop after the first 4.
        try (TestBroker broker = TestBroker.start(dir);
                FelixClient c = broker.connect(b -> b.receiveQueue(8, 1 << 20, ReceivePolicy.BLOCK))) {
            c.streams().create(LIVE, StreamSpec.ephemeral(1));
            Seen seen = new Seen();
            c.subscribe(SubscribeOptions.of(LIVE), (EventViewHandler) seen::add);
            Publisher p = c.publisher(LIVE);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                acks.add(p.publishAsync(null, ByteBuffer.allocate(4 + i % 100).putInt(0, i).array()));
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 2_000);

            synchronized (seen) {
                for (int i = 0; i < 2_000; i++) {
                    assertThat(seen.offsets.get(i)).as("offset of event %d", i).isEqualTo(i);
                    assertThat(seen.values.get(i)).as("payload of event %d", i).isEqualTo(i);
                }
                assertThat(seen.allReadOnly).as("a view never lets the handler write into the frame").isTrue();
                assertThat(seen.threads).allSatisfy(name -> assertThat(name).startsWith("felix-quic-client"));
            }
            assertThat(c.metrics().snapshot().get(READ_IN_PLACE)).as("every event read in place").isEqualTo(2_000L);
            assertThat(c.metrics().snapshot().get("felix_client_received_events_total")).isEqualTo(2_000L);
        }
    }

    @Test
    void eventsThatWaitedInTheQueue_comeFirstAndInOrder_thenEventsAreReadInPlace() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect();
                HandlerDispatcher handlers = new HandlerDispatcher(1)) {
            c.streams().create(LOG, StreamSpec.durable(1, "none"));
            Publisher p = c.publisher(LOG);
            for (int i = 0; i < 3_000; i += 100) {
                List<byte[]> batch = new ArrayList<>();
                for (int j = i; j < i + 100; j++) {
                    batch.add(ByteBuffer.allocate(4).putInt(0, j).array());
                }
                p.publishBatch(batch);
            }
            // The log replayed into the queue before any handler is set.
            Subscription s = c.subscribe(SubscribeOptions.of(LOG).fromEarliest());
            await().atMost(Duration.ofSeconds(30)).until(() -> s.queued() == 3_000);

            Seen seen = new Seen();
            handlers.dispatch(s, (EventViewHandler) seen::add); // hands out what waits, here and now
            assertThat(seen.size()).as("the queued events, handed out as the handler was set").isEqualTo(3_000);
            assertThat(c.metrics().snapshot().get(READ_IN_PLACE)).as("none of them in place").isZero();

            for (int i = 3_000; i < 3_500; i++) {
                p.publishAsync(null, ByteBuffer.allocate(4).putInt(0, i).array());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 3_500);

            synchronized (seen) {
                for (int i = 0; i < 3_500; i++) {
                    assertThat(seen.offsets.get(i)).as("offset of event %d: in order, once", i).isEqualTo(i);
                    assertThat(seen.values.get(i)).as("payload of event %d", i).isEqualTo(i);
                }
                assertThat(seen.allReadOnly).isTrue();
            }
            assertThat(c.metrics().snapshot().get(READ_IN_PLACE)).as("with the queue drained, live events skip it")
                    .isEqualTo(500L);
        }
    }

    @Test
    void gapNoticesAndEventsReadInPlace_arriveInOffsetOrder() throws Exception {
        // The broker keeps 4 events for this subscriber and drops the rest (drop_new); the client grants 4 at a
        // time and takes nothing until its handler is set: so the broker drops, and must say so in order.
        try (TestBroker broker = TestBroker.start(dir);
                FelixClient c = broker.connect(b -> b.receiveQueue(8, 1 << 20, ReceivePolicy.BLOCK));
                HandlerDispatcher handlers = new HandlerDispatcher(1)) {
            c.streams().create(LIVE, StreamSpec.ephemeral(1));
            Subscription s = c.subscribe(SubscribeOptions.of(LIVE).withQueue(QueuePolicy.DROP_NEW, 4));
            Publisher p = c.publisher(LIVE);
            for (int i = 0; i < 40; i++) {
                p.publish(ByteBuffer.allocate(4).putInt(0, i).array());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> s.queued() == 4);

            List<String> got = new ArrayList<>(); // guarded by itself
            handlers.dispatch(s, new EventViewHandler() {
                @Override
                public void onEvent(EventView view) {
                    synchronized (got) {
                        got.add("event " + view.offset() + " " + view.payload().getInt(view.payload().position()));
                    }
                }

                @Override
                public void onGap(Gap gap) {
                    synchronized (got) {
                        got.add("gap " + gap.from() + " " + gap.to());
                    }
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                synchronized (got) {
                    return got.stream().anyMatch(g -> g.startsWith("gap"));
                }
            });
            for (int i = 40; i < 50; i++) {
                p.publish(ByteBuffer.allocate(4).putInt(0, i).array());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                synchronized (got) {
                    return got.contains("event 49 49");
                }
            });

            synchronized (got) {
                long next = 0;
                for (String item : got) {
                    String[] f = item.split(" ");
                    long at = Long.parseLong(f[1]);
                    assertThat(at).as("%s where offset %d was due: %s", item, next, got).isEqualTo(next);
                    if (f[0].equals("event")) {
                        assertThat(Long.parseLong(f[2])).as("payload of %s", item).isEqualTo(at);
                        next = at + 1;
                    } else {
                        next = Long.parseLong(f[2]) + 1;
                    }
                }
                assertThat(next).as("every offset up to 49 handed out or announced: %s", got).isEqualTo(50);
            }
            assertThat(c.metrics().snapshot().get(READ_IN_PLACE)).as("the live events, read in place").isPositive();
        }
    }

    @Test
    void aGapNoticeAlone_countsAsWaiting() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(LIVE, StreamSpec.ephemeral(1));
            Subscription s = c.subscribe(SubscribeOptions.of(LIVE));
            assertThat(s.hasPending()).isFalse();
            s.queue().add(new Gap(LIVE, 0, 0, 4, "queue_overflow"));
            assertThat(s.queued()).as("queued() counts events only").isZero();
            assertThat(s.hasPending()).as("so events read in place would overtake the gap unless it counts").isTrue();
        }
    }

    @Test
    void aHandlerThatThrows_endsItsSubscriptionWithTheCause_andTheOtherCarriesOn() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(LIVE, StreamSpec.ephemeral(1));
            Seen failing = new Seen();
            CompletableFuture<FelixClientException> end = new CompletableFuture<>();
            Subscription s = c.subscribe(SubscribeOptions.of(LIVE), new EventViewHandler() {
                @Override
                public void onEvent(EventView view) {
                    failing.add(view);
                    if (view.offset() == 3) {
                        throw new IllegalStateException("cannot use event 3");
                    }
                }

                @Override
                public void onEnd(FelixClientException cause) {
                    end.complete(cause);
                }
            });
            Seen other = new Seen();
            c.subscribe(SubscribeOptions.of(LIVE), (EventViewHandler) other::add);
            Publisher p = c.publisher(LIVE);
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(ByteBuffer.allocate(4).putInt(0, i).array());
            }
            p.publishBatch(batch); // one batch: the failure comes in the middle of one frame

            FelixClientException cause = end.get(20, TimeUnit.SECONDS);
            assertThat(cause.code()).isEqualTo(ErrorCode.INTERNAL);
            assertThat(cause.getMessage()).contains("the handler failed").contains("cannot use event 3");
            assertThat(s.ended()).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> other.size() == 10);
            synchronized (failing) {
                assertThat(failing.offsets).as("nothing after the event that threw").containsExactly(0L, 1L, 2L, 3L);
            }
            synchronized (other) {
                assertThat(other.values).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            }
            assertThat(c.metrics().snapshot().get(READ_IN_PLACE)).as("read in place, up to the throw").isPositive();
            assertThat(c.connected()).isTrue();
        }
    }
}
