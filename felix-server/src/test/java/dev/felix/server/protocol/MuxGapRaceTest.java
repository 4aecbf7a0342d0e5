package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.core.StreamName;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.SubscriptionListener;
import dev.felix.server.TestBroker;
import dev.felix.wire.QueuePolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mux drain writes what it took from a {@code drop_old} subscriber's queue, not what it saw there. The drain peeks
 * the queue's head, and the shard's writer may evict from the head at any moment before the drain polls (it runs on
 * another thread, or on another connection's event loop): a batch it looked at may be gone, replaced by a gap notice,
 * and a gap notice it looked at may have grown into a new, merged one. Written as seen, the first would send evicted
 * events, the second would lose the events evicted in between without a word.
 *
 * <p>The window is a few instructions wide, so the test opens it on purpose: {@link MuxSession#feedWrapperForTests}
 * wraps the channel's feed so that the drain's first look at a gap notice publishes one more event and waits until
 * the writer has evicted behind it.
 */
@Timeout(60)
class MuxGapRaceTest {

    private static final StreamRef REF = StreamRef.parse("t1/default/gap-race");

    @TempDir
    Path dir;

    private TestBroker broker;
    private FelixClient publishing;
    private FelixClient subscribing;
    private Publisher publisher;
    private Shard shard;
    /** What the drain looked at when the race was run (null until then). */
    private final AtomicReference<Delivery> seen = new AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dir);
        publishing = broker.connect();
        // A receive queue of 2 under block: the client grants its channel one event of credit at a time.
        subscribing = broker.connect(b -> b.receiveQueue(2, 1 << 20, ReceivePolicy.BLOCK));
        publisher = publishing.publisher(REF);
        assertThat(publisher.publish(bytes("w")).firstOffset()).isZero(); // creates the stream
        shard = broker.server().broker().stream(new StreamName("t1", "default", "gap-race")).shard(0);
    }

    @AfterEach
    void stop() {
        MuxSession.feedWrapperForTests = null;
        subscribing.close();
        publishing.close();
        broker.close();
    }

    /**
     * From now on, the first time a drain looks at an item of {@code kind} at a channel's head, {@code payload} is
     * published straight to the shard and the drain waits until the writer has evicted behind what it saw; then a
     * {@code drop_old} subscriber with a broker queue of one event.
     */
    private Subscription subscribeRacing(Class<? extends Delivery> kind, String payload) {
        MuxSession.feedWrapperForTests = feed -> new RacingFeed(feed, kind, seen,
                () -> shard.tryPublish(PublishRequest.of(new byte[][] {bytes(payload)}, null)));
        return subscribing.subscribe(SubscribeOptions.of(REF).withQueue(QueuePolicy.DROP_OLD, 1));
    }

    @Test
    void aGapThatGrowsBetweenTheDrainsLookAndItsTake_reachesTheSubscriberWhole() throws Exception {
        Subscription sub = subscribeRacing(GapNotice.class, "d");
        assertThat(publisher.publish(bytes("a")).firstOffset()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> sub.queued() == 1); // a went out: no credit left
        assertThat(publisher.publish(bytes("b")).firstOffset()).isEqualTo(2); // waits in the broker's queue
        // c does not fit: b is evicted, the queue holds gap(2..2) and c. Deliveries precede the ack.
        assertThat(publisher.publish(bytes("c")).firstOffset()).isEqualTo(3);
        assertThat(seen.get()).as("no drain looked at the gap yet: the channel has no credit").isNull();

        // Taking a grants one event of credit; the drain looks at gap(2..2), d (offset 4) evicts c behind it,
        // and the head becomes gap(2..3) before the drain takes it.
        assertThat(sub.next(Duration.ofSeconds(10))).isInstanceOfSatisfying(Event.class,
                e -> assertThat(e.offset()).isEqualTo(1));
        Item second = sub.next(Duration.ofSeconds(10));
        Item third = sub.next(Duration.ofSeconds(10));

        assertThat(seen.get()).as("the drain looked at the gap before the writer grew it")
                .isInstanceOfSatisfying(GapNotice.class, g -> assertThat(List.of(g.from(), g.to()))
                        .containsExactly(2L, 2L));
        assertThat(second).as("c (offset 3) was evicted after the drain looked; the subscriber must hear of it")
                .isInstanceOfSatisfying(Gap.class, g -> {
                    assertThat(g.from()).isEqualTo(2);
                    assertThat(g.to()).isEqualTo(3);
                });
        assertThat(third).isInstanceOfSatisfying(Event.class, e -> {
            assertThat(e.offset()).isEqualTo(4);
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("d");
        });
    }

    @Test
    void aBatchEvictedBetweenTheDrainsLookAndItsTake_isReportedAsAGap_andNotWritten() throws Exception {
        Subscription sub = subscribeRacing(EventBatch.class, "c");
        // The drain looks at b (offset 1) with credit to send it; c (offset 2) evicts b before the drain takes it.
        assertThat(publisher.publish(bytes("b")).firstOffset()).isEqualTo(1);
        Item first = sub.next(Duration.ofSeconds(10));
        Item second = sub.next(Duration.ofSeconds(10));

        assertThat(seen.get()).as("the drain looked at b before the writer evicted it")
                .isInstanceOfSatisfying(EventBatch.class, b -> assertThat(b.baseOffset()).isEqualTo(1));
        assertThat(first).as("b was evicted, so the subscriber hears of it as a gap, not as an event")
                .isInstanceOfSatisfying(Gap.class, g -> {
                    assertThat(g.from()).isEqualTo(1);
                    assertThat(g.to()).isEqualTo(1);
                });
        assertThat(second).isInstanceOfSatisfying(Event.class, e -> {
            assertThat(e.offset()).isEqualTo(2);
            assertThat(new String(e.payload(), StandardCharsets.UTF_8)).isEqualTo("c");
        });
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The channel's feed, except that the first time the drain looks at an item of {@code kind} at the head,
     * {@code evictMore} publishes and this waits until the queue's head is no longer that item, then returns the item
     * the drain saw.
     */
    private static final class RacingFeed implements EventFeed {
        private final EventFeed feed;
        private final Class<? extends Delivery> kind;
        private final AtomicReference<Delivery> seen;
        private final Runnable evictMore;

        RacingFeed(EventFeed feed, Class<? extends Delivery> kind, AtomicReference<Delivery> seen, Runnable evictMore) {
            this.feed = feed;
            this.kind = kind;
            this.seen = seen;
            this.evictMore = evictMore;
        }

        @Override
        public Delivery peek() {
            return feed.peek();
        }

        @Override
        public Delivery peekHeld() {
            Delivery head = feed.peekHeld();
            if (kind.isInstance(head) && seen.compareAndSet(null, head)) {
                evictMore.run();
                // The writer runs inline here or on its pool; either way it evicts without this thread's help.
                await().atMost(Duration.ofSeconds(10)).pollInSameThread().pollInterval(Duration.ofMillis(1))
                        .until(() -> feed.peek() != head);
            }
            return head;
        }

        @Override
        public Delivery poll() {
            return feed.poll();
        }

        @Override
        public long id() {
            return feed.id();
        }

        @Override
        public int shard() {
            return feed.shard();
        }

        @Override
        public boolean durable() {
            return feed.durable();
        }

        @Override
        public long incarnation() {
            return feed.incarnation();
        }

        @Override
        public void listen(SubscriptionListener listener) {
            feed.listen(listener);
        }

        @Override
        public long queuedEvents() {
            return feed.queuedEvents();
        }

        @Override
        public void close() {
            feed.close();
        }
    }
}
