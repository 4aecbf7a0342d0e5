package dev.felix.bench.system;

import dev.felix.bench.common.BenchBroker;
import dev.felix.bench.common.CpuClock;
import dev.felix.client.FelixClient;
import dev.felix.client.EventViewHandler;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.wire.QueuePolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Felix: an in-process {@link BenchBroker} on loopback (QUIC, TLS 1.3 always on), reached through the
 * Java SDK exactly as an application would, one client connection per publisher and per subscriber.
 *
 * <ul>
 *   <li>{@code felix}: ephemeral streams, lossless ({@code block} subscriber queues end to end);
 *       confirmed publish = per-message ack; batch publish = unacknowledged binary batch
 *       ({@link dev.felix.client.Publisher#sendBatch}), the SDK's throughput path.</li>
 *   <li>{@code felix-durable} / {@code felix-durable-sync}: durable streams with fsync {@code periodic}
 *       (every 250 ms) / {@code on_commit} (before the ack); batch publish = acknowledged batches, at most
 *       {@link AckWindow#LIMIT} messages unacknowledged; subscribers read from the earliest offset.</li>
 * </ul>
 */
public final class FelixTarget implements Target {

    /** Tenant and namespace every benchmark stream lives in. */
    static final String TENANT = "bench";
    static final String NAMESPACE = "bench";
    /**
     * Broker settings under every Felix benchmark, which {@code --set} may override: ephemeral
     * subscribers block rather than drop (the default is drop_new), so a run measures delivery of every
     * message, as the peers' windowed runs do.
     */
    static final Map<String, String> LOSSLESS = Map.of("subscriber_queue_policy", "block");

    /** The broker's own threads (QUIC server loop, shard writers, storage flushers, admin, caches). */
    private static final Predicate<String> BROKER_THREADS = n -> n.startsWith("felix-quic-server")
            || n.startsWith("felix-shard") || n.startsWith("felix-storage") || n.startsWith("felix-admin")
            || n.startsWith("felix-cache");

    private final String name;
    private final BenchBroker broker;
    /** Null for ephemeral streams; otherwise the fsync policy of the durable streams created. */
    private final String fsync;
    private final List<FelixClient> clients = new ArrayList<>();
    private final Set<String> created = new HashSet<>();
    private FelixClient admin;

    private FelixTarget(String name, BenchBroker broker, String fsync) {
        this.name = name;
        this.broker = broker;
        this.fsync = fsync;
    }

    /** {@code felix}: ephemeral streams; {@code settings} override broker config keys. */
    public static TargetFactory factory(Map<String, String> settings) {
        return factory("felix", null, settings);
    }

    /** A durable variant: {@code fsync} is {@code periodic}, {@code on_commit} or {@code none}. */
    public static TargetFactory durableFactory(String name, String fsync, Map<String, String> settings) {
        return factory(name, fsync, settings);
    }

    private static TargetFactory factory(String name, String fsync, Map<String, String> settings) {
        Map<String, String> merged = new HashMap<>(LOSSLESS);
        merged.putAll(settings);
        return new TargetFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String unavailable() {
                return null; // in-process: always available
            }

            @Override
            public Target start() throws Exception {
                return new FelixTarget(name, BenchBroker.start(merged), fsync);
            }
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean backpressure() {
        return true;
    }

    @Override
    public boolean brokerInThisProcess() {
        return true;
    }

    @Override
    public long brokerCpuNanos() {
        return CpuClock.threads(BROKER_THREADS);
    }

    @Override
    public long brokerAllocatedBytes() {
        return CpuClock.allocatedBytes(BROKER_THREADS);
    }

    private boolean durable() {
        return fsync != null;
    }

    private StreamRef stream(String topic) {
        StreamRef ref = new StreamRef(TENANT, NAMESPACE, topic);
        if (durable() && created.add(topic)) {
            // Ephemeral streams are created on first use; a durable one must be declared first.
            if (admin == null) {
                admin = connect();
            }
            admin.streams().create(ref, StreamSpec.durable(1, fsync));
        }
        return ref;
    }

    private FelixClient connect() {
        FelixClient c = broker.connect(TENANT);
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    private void release(FelixClient c) {
        synchronized (clients) {
            clients.remove(c);
        }
        c.close();
    }

    @Override
    public Publisher publisher(String topic) {
        StreamRef ref = stream(topic);
        FelixClient client = connect();
        dev.felix.client.Publisher publisher = client.publisher(ref);
        return durable() ? new DurablePublisher(client, publisher) : new EphemeralPublisher(client, publisher);
    }

    @Override
    public AutoCloseable subscribe(String topic, Handler handler) {
        StreamRef ref = stream(topic);
        FelixClient client = connect();
        SubscribeOptions options = durable() ? SubscribeOptions.of(ref).fromEarliest()
                : SubscribeOptions.of(ref).withQueue(QueuePolicy.BLOCK, null);
        // The benchmark's handler only records and never waits: it is declared non-blocking, so the SDK calls it
        // on the connection's I/O thread as the events are read, as a latency-minded application would (NATS's
        // and Redis's clients here call theirs on a dispatcher / the reading thread). A gap (events that will
        // never come) needs no handling: the sequence check counts them missing. It reads each message where it
        // arrived (EventViewHandler), as an application that decodes at once would: no copy per event. NATS's and
        // Redis's Java clients offer no such form; theirs hand over a new array per message.
        Subscription subscription = client.subscribe(options,
                (EventViewHandler) view -> handler.onMessage(view.payload()));
        return () -> {
            subscription.close();
            release(client);
        };
    }

    @Override
    public void close() {
        List<FelixClient> open;
        synchronized (clients) {
            open = new ArrayList<>(clients);
            clients.clear();
        }
        for (FelixClient c : open) {
            c.close();
        }
        broker.close();
    }

    /** Ephemeral: per-message acks when confirmed; unacknowledged binary batches otherwise. */
    private final class EphemeralPublisher implements Publisher {
        private final FelixClient client;
        private final dev.felix.client.Publisher publisher;
        private CompletableFuture<Void> lastWrite;

        EphemeralPublisher(FelixClient client, dev.felix.client.Publisher publisher) {
            this.client = client;
            this.publisher = publisher;
        }

        @Override
        public void publishConfirmed(byte[] message) {
            publisher.publish(message);
        }

        @Override
        public void publishBatch(List<byte[]> messages) {
            lastWrite = publisher.sendBatch(messages);
        }

        @Override
        public void flush() throws Exception {
            if (lastWrite != null) {
                lastWrite.get(30, TimeUnit.SECONDS); // batches are written in order: the last one covers all
            }
            if (publisher.refusedUnacknowledged() > 0) {
                throw new IllegalStateException("the broker refused " + publisher.refusedUnacknowledged()
                        + " unacknowledged batch(es): " + publisher.lastError());
            }
        }

        @Override
        public void close() {
            publisher.close();
            release(client);
        }
    }

    /** Durable: every publish acknowledged; batches pipelined up to the {@link AckWindow}. */
    private final class DurablePublisher implements Publisher {
        private final FelixClient client;
        private final dev.felix.client.Publisher publisher;
        private final AckWindow window = new AckWindow();

        DurablePublisher(FelixClient client, dev.felix.client.Publisher publisher) {
            this.client = client;
            this.publisher = publisher;
        }

        @Override
        public void publishConfirmed(byte[] message) {
            publisher.publish(message);
        }

        @Override
        public void publishBatch(List<byte[]> messages) throws Exception {
            window.reserve(messages.size());
            window.add(publisher.publishBatchAsync(null, messages), messages.size());
        }

        @Override
        public void flush() throws Exception {
            window.drain();
        }

        @Override
        public void close() {
            publisher.close();
            release(client);
        }
    }
}
