package dev.felix.core;

import dev.felix.core.stream.Stream;
import dev.felix.core.stream.StreamFactory;
import dev.felix.core.stream.StreamInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The broker core: the registry of tenants, namespaces and streams, and the threads that run shard
 * writers. Plain Java, no network: a server adapts the wire to it, and tests or an in-process client
 * use it directly.
 *
 * <p>Thread-safe. Streams are created explicitly ({@link #createStream}) or, with
 * {@link CoreConfig#autoCreate()}, as ephemeral single-shard streams on first use.
 */
public final class Broker implements AutoCloseable {

    private final CoreConfig config;
    private final CoreMetrics metrics = new CoreMetrics();
    private final ExecutorService shardThreads;
    private final StreamFactory factory;
    private final ConcurrentHashMap<StreamName, Stream> streams = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public Broker(CoreConfig config) {
        this.config = config;
        int threads = config.shardThreads() > 0 ? config.shardThreads() : Runtime.getRuntime().availableProcessors();
        this.shardThreads = Executors.newFixedThreadPool(threads, new NamedThreads("felix-shard"));
        this.factory = new StreamFactory(config, metrics, shardThreads);
    }

    public CoreConfig config() {
        return config;
    }

    public CoreMetrics metrics() {
        return metrics;
    }

    /**
     * Creates a stream. Creating one that exists with the same definition returns it (idempotent);
     * with a different definition fails with {@code already_exists}.
     */
    public Stream createStream(StreamName name, StreamConfig streamConfig) throws FelixException {
        checkOpen();
        if (streamConfig.durable()) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "durable streams are not supported by this broker yet");
        }
        Stream created = streams.computeIfAbsent(name, n -> factory.create(n, streamConfig));
        if (!created.config().equals(streamConfig)) {
            throw new FelixException(ErrorCode.ALREADY_EXISTS, "stream " + name
                    + " exists with a different definition (" + describe(created.config()) + ")");
        }
        return created;
    }

    /**
     * The named stream; with auto-create on, an ephemeral one is created if missing. Otherwise a
     * missing stream is {@code not_found}, naming which part (tenant, namespace, stream) is unknown.
     */
    public Stream stream(StreamName name) throws FelixException {
        checkOpen();
        Stream s = streams.get(name);
        if (s != null) {
            return s;
        }
        if (config.autoCreate()) {
            return streams.computeIfAbsent(name, n -> factory.create(n, StreamConfig.ephemeral()));
        }
        throw new FelixException(ErrorCode.NOT_FOUND, notFoundMessage(name));
    }

    /** The named stream if it exists (never creates). */
    public Optional<Stream> find(StreamName name) {
        return Optional.ofNullable(streams.get(name));
    }

    /** Streams of a tenant, optionally of one namespace, sorted by name. */
    public List<StreamInfo> list(String tenant, String namespace) {
        List<StreamInfo> result = new ArrayList<>();
        for (Stream s : streams.values()) {
            StreamName n = s.name();
            if (n.tenant().equals(tenant) && (namespace == null || n.namespace().equals(namespace))) {
                result.add(s.info());
            }
        }
        result.sort(Comparator.comparing(i -> i.name().toString()));
        return result;
    }

    /** Every stream, for metrics. */
    public List<Stream> streams() {
        return List.copyOf(streams.values());
    }

    /** Ends all subscriptions, fails queued publishes and stops the shard threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Stream s : streams.values()) {
            StreamFactory.close(s);
        }
        shardThreads.shutdown();
        try {
            if (!shardThreads.awaitTermination(5, TimeUnit.SECONDS)) {
                shardThreads.shutdownNow();
            }
        } catch (InterruptedException e) {
            shardThreads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private void checkOpen() throws FelixException {
        if (closed) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "the broker is shutting down");
        }
    }

    private String notFoundMessage(StreamName name) {
        boolean tenant = false;
        boolean namespace = false;
        for (StreamName n : streams.keySet()) {
            if (n.tenant().equals(name.tenant())) {
                tenant = true;
                if (n.namespace().equals(name.namespace())) {
                    namespace = true;
                }
            }
        }
        if (!tenant) {
            return "tenant '" + name.tenant() + "' not found";
        }
        if (!namespace) {
            return "namespace '" + name.tenant() + "/" + name.namespace() + "' not found";
        }
        return "stream '" + name + "' not found";
    }

    private static String describe(StreamConfig c) {
        return "shards=" + c.shards() + ", durable=" + c.durable();
    }

    /** Daemon threads with a readable name, so thread dumps show which pool is which. */
    static final class NamedThreads implements ThreadFactory {
        private final String prefix;
        private final AtomicInteger n = new AtomicInteger();

        NamedThreads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }
}
