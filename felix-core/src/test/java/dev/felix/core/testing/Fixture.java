package dev.felix.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.broker.Broker;
import dev.felix.core.CoreConfig;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A broker for one test, with helpers to publish, subscribe and wait; closes everything it made. */
public final class Fixture implements AutoCloseable {

    /** Queue limits no test fills by accident. */
    public static final QueueLimits ROOMY = new QueueLimits(1 << 20, 1L << 30);

    public final Broker broker;
    private final List<Collector> collectors = new ArrayList<>();

    public Fixture(CoreConfig config) {
        this.broker = new Broker(config);
    }

    /** Defaults, two shard threads (tests must not depend on the machine's core count). */
    public static CoreConfig config() {
        return CoreConfig.defaults().withShardThreads(2);
    }

    /**
     * A broker keeping its logs and metadata under {@code dir}, streams created only when declared, whose logs
     * commit through {@code gates} (the seam a cluster plugs replication into).
     */
    public static Broker durableBroker(java.nio.file.Path dir, dev.felix.core.writer.GateFactory gates) {
        CoreConfig c = config().withAutoCreate(false).withOpenTenants(true).withStorage(CoreConfig.Storage.at(dir));
        return new Broker(c, dev.felix.core.metadata.LocalMetadata.at(dir), new dev.felix.core.routing.LocalRouter(),
                gates);
    }

    public Stream stream(String name, int shards) {
        try {
            return broker.createStream(new StreamName("t", "ns", name), StreamConfig.ephemeral(shards));
        } catch (FelixException e) {
            throw new AssertionError(e);
        }
    }

    public Shard shard(String name) {
        return stream(name, 1).shard(0);
    }

    // ------------------------------------------------------------------ publishing

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static PublishRequest request(PublishListener listener, String... payloads) {
        byte[][] p = new byte[payloads.length][];
        for (int i = 0; i < payloads.length; i++) {
            p[i] = bytes(payloads[i]);
        }
        return PublishRequest.of(p, listener);
    }

    /** Queues a publish that must be taken (the writer queue has room) and returns its listener. */
    public static AckListener publishAsync(Shard shard, String... payloads) {
        AckListener l = new AckListener();
        assertThat(shard.tryPublish(request(l, payloads))).as("writer queue takes the publish").isTrue();
        return l;
    }

    /**
     * Publishes and waits until the shard accepted it. Publishing one batch at a time this way keeps
     * the writer from merging publishes, so every publish is exactly one {@code EventBatch}.
     */
    public static Ack publish(Shard shard, String... payloads) {
        return Await.get(publishAsync(shard, payloads).future);
    }

    /** Publishes {@code count} single-event batches {@code prefix+i}, one at a time. */
    public static void publishEach(Shard shard, String prefix, int from, int count) {
        for (int i = from; i < from + count; i++) {
            publish(shard, prefix + i);
        }
    }

    /** Queues a publish, waiting through {@link Shard#onWritable} while the writer queue is full. */
    public static void publishWithBackpressure(Shard shard, PublishRequest request) {
        while (!shard.tryPublish(request)) {
            CountDownLatch writable = new CountDownLatch(1);
            shard.onWritable(writable::countDown);
            try {
                assertThat(writable.await(Await.LIMIT.toMillis(), TimeUnit.MILLISECONDS))
                        .as("onWritable fires once the writer queue drains").isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * Returns once the shard's writer has had a full chance to take queued publishes: two control
     * tasks (subscribes) complete one after the other. The first may run in a writer pass that began
     * before this call; the second runs only after a later pass has run its publish loop, so any
     * publish queued before this call and not taken by then is being held back on purpose (a blocked
     * writer), not merely not reached yet. Valid while fewer than 4096 events are queued.
     */
    public static void writerBarrier(Shard shard) {
        for (int i = 0; i < 2; i++) {
            Await.get(shard.subscribe(SubscribeRequest.from(StartPosition.LATEST))).close();
        }
    }

    // ------------------------------------------------------------------ subscribing

    public static Subscription subscribe(Shard shard, StartPosition start, QueuePolicy policy, QueueLimits limits) {
        return Await.get(shard.subscribe(new SubscribeRequest(start, policy, limits, 0)));
    }

    /** A subscriber that does not poll until told to. */
    public Collector manual(Shard shard, StartPosition start, QueuePolicy policy, QueueLimits limits) {
        return track(Collector.manual(subscribe(shard, start, policy, limits)));
    }

    /** A subscriber that drains on its own thread. */
    public Collector draining(Shard shard, StartPosition start, QueuePolicy policy, QueueLimits limits) {
        return track(Collector.draining(subscribe(shard, start, policy, limits)));
    }

    public Collector track(Collector c) {
        synchronized (collectors) {
            collectors.add(c);
        }
        return c;
    }

    @Override
    public void close() {
        List<Collector> all;
        synchronized (collectors) {
            all = List.copyOf(collectors);
        }
        for (Collector c : all) {
            c.stop();
        }
        broker.close();
        for (Collector c : all) {
            c.checkNoErrors();
        }
    }
}
