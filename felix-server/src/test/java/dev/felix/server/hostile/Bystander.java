package dev.felix.server.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.ClientConfig;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.server.TestBroker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A well-behaved SDK user running beside the abuse: one {@link FelixClient} publishes small acked
 * batches at a steady pace, another (its own QUIC connection) subscribes and checks that every offset
 * arrives exactly once, in order, with the payload that was published for it.
 */
final class Bystander implements AutoCloseable {

    private static final int BATCH = 5;
    private static final long PERIOD_MS = 5;

    private final FelixClient publisherClient;
    private final FelixClient subscriberClient;
    private final Publisher publisher;
    private final Subscription subscription;
    private final ScheduledExecutorService pace;
    private final Thread reader;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private volatile boolean stopReading;

    private Bystander(TestBroker broker, StreamRef stream, Consumer<ClientConfig.Builder> customize) {
        publisherClient = broker.connect(customize);
        subscriberClient = broker.connect(customize);
        subscription = subscriberClient.subscribe(SubscribeOptions.of(stream).fromEarliest());
        publisher = publisherClient.publisher(stream);
        reader = new Thread(this::read, "bystander-reader");
        reader.setDaemon(true);
        reader.start();
        pace = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bystander-publisher");
            t.setDaemon(true);
            return t;
        });
        pace.scheduleWithFixedDelay(this::publishOne, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    static Bystander start(TestBroker broker, String stream) {
        return start(broker, stream, b -> { });
    }

    /** With {@code customize} applied to both clients' configuration. */
    static Bystander start(TestBroker broker, String stream, Consumer<ClientConfig.Builder> customize) {
        return new Bystander(broker, StreamRef.parse("t1/default/" + stream), customize);
    }

    private void publishOne() {
        long first = published.get();
        List<byte[]> payloads = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            payloads.add(ByteBuffer.allocate(8).putLong(first + i).array());
        }
        try {
            PublishAck ack = publisher.publishBatch(payloads);
            if (ack.firstOffset() != first || ack.count() != BATCH) {
                problems.add("ack " + ack + " for the batch starting at " + first);
            }
            published.addAndGet(BATCH);
        } catch (RuntimeException e) {
            problems.add("publish at " + first + " failed: " + e);
            throw e; // stops the schedule
        }
    }

    private void read() {
        long expected = 0;
        while (!stopReading) {
            Item item;
            try {
                item = subscription.next(Duration.ofMillis(100));
            } catch (RuntimeException e) {
                problems.add("subscription failed after offset " + (expected - 1) + ": " + e);
                return;
            }
            if (item == null) {
                continue;
            }
            if (item instanceof Gap g) {
                problems.add("gap " + g);
                expected = g.to() + 1;
                continue;
            }
            Event e = (Event) item;
            if (e.offset() != expected) {
                problems.add("offset " + e.offset() + " arrived when " + expected + " was expected");
            }
            long seq = ByteBuffer.wrap(e.payload()).getLong();
            if (seq != e.offset()) {
                problems.add("offset " + e.offset() + " carried the payload of " + seq);
            }
            expected = e.offset() + 1;
            received.incrementAndGet();
        }
    }

    long published() {
        return published.get();
    }

    long received() {
        return received.get();
    }

    /** Waits until the subscriber has seen at least {@code n} more events than now: it is alive right now. */
    void awaitProgress(long n) {
        long target = received.get() + n;
        await().atMost(Duration.ofSeconds(10)).until(() -> received.get() >= target || !problems.isEmpty());
        assertThat(problems).as("bystander problems").isEmpty();
    }

    /** Stops publishing, waits for the subscriber to catch up and checks it saw every offset in order. */
    long stopAndVerify() throws InterruptedException {
        pace.shutdown();
        assertThat(pace.awaitTermination(10, TimeUnit.SECONDS)).as("publisher stopped").isTrue();
        long total = published.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> received.get() >= total || !problems.isEmpty());
        stopReading = true;
        reader.join(5000);
        assertThat(problems).as("bystander problems").isEmpty();
        assertThat(received.get()).as("events the bystander received").isEqualTo(total);
        return total;
    }

    @Override
    public void close() {
        pace.shutdownNow();
        stopReading = true;
        subscription.close();
        publisherClient.close();
        subscriberClient.close();
    }
}
