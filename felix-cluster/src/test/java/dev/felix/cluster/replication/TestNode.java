package dev.felix.cluster.replication;

import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.core.CoreConfig;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.routing.LocalRouter;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.storage.LogConfig;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import dev.felix.transport.TlsMaterial;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509TrustManager;

/**
 * One node of a one-JVM replication test: a broker over its own data directory, its replication and its
 * peer endpoint (mutual TLS on a loopback port the OS picks), sharing metadata and the {@link TestView} with
 * the other nodes. {@link #close()} stops it abruptly enough to stand for a lost node (nothing is handed
 * off); {@link #restart()} starts it again over the same directory.
 */
final class TestNode implements AutoCloseable {

    final String id;
    final Path dir;
    private final TestView view;
    private final Metadata metadata;
    private final TlsMaterial identity;
    private final X509TrustManager trust;
    private final ReplicationSettings settings;
    Broker broker;
    Replication replication;
    PeerEndpoint endpoint;

    TestNode(String id, Path dir, TestView view, Metadata metadata, TlsMaterial identity, X509TrustManager trust,
            ReplicationSettings settings) throws Exception {
        this.id = id;
        this.dir = dir;
        this.view = view;
        this.metadata = metadata;
        this.identity = identity;
        this.trust = trust;
        this.settings = settings;
        start();
    }

    private void start() throws Exception {
        replication = new Replication(id, view.as(id), view, settings);
        endpoint = PeerEndpoint.start(new InetSocketAddress("127.0.0.1", 0), identity, trust,
                TransportConfig.defaults(), replication.acceptor());
        CoreConfig config = CoreConfig.defaults().withShardThreads(2).withAutoCreate(false).withOpenTenants(true)
                .withStorage(CoreConfig.Storage.at(dir));
        broker = new Broker(config, new SharedMetadata(metadata), new LocalRouter(), replication);
        view.node(id, "127.0.0.1:" + endpoint.localAddress().getPort());
        replication.start(broker, endpoint);
    }

    void restart() throws Exception {
        start();
    }

    Shard shard(StreamName name) throws FelixException {
        return broker.stream(name).shard(0);
    }

    /** Publishes one event and waits for the answer: its offset, or the error it was refused with. */
    static Object publish(Shard shard, String payload) throws Exception {
        CompletableFuture<Object> result = new CompletableFuture<>();
        PublishRequest request = PublishRequest.of(new byte[][] {payload.getBytes(StandardCharsets.UTF_8)},
                new PublishListener() {
                    @Override
                    public void accepted(int shardIndex, long firstOffset, int count) {
                        result.complete(firstOffset);
                    }

                    @Override
                    public void failed(FelixError error) {
                        result.complete(error);
                    }
                });
        while (!shard.tryPublish(request)) {
            Thread.onSpinWait();
        }
        return result.get(30, TimeUnit.SECONDS);
    }

    /** Every event from {@code from} as {@code offset=payload}, reading until {@code count} arrived (bounded). */
    static List<String> read(Shard shard, long from, int count) throws Exception {
        Subscription s = shard.subscribe(SubscribeRequest.from(StartPosition.at(from))).get(10, TimeUnit.SECONDS);
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try {
            while (out.size() < count && System.nanoTime() < deadline) {
                Delivery d = s.poll();
                if (d == null) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                    continue;
                }
                if (d instanceof EventBatch b) {
                    for (int i = 0; i < b.eventCount(); i++) {
                        out.add((b.baseOffset() + i) + "=" + new String(b.payload(i), StandardCharsets.UTF_8));
                    }
                } else if (d instanceof GapNotice g) {
                    out.add("gap " + g.from() + ".." + g.to() + " " + g.reason());
                }
            }
        } finally {
            s.close();
        }
        return out;
    }

    /** The records of this node's log of {@code name} shard 0, read straight from disk (node closed). */
    List<String> logContents(StreamName name, long uid, LogConfig config) {
        Path logDir = dir.resolve("logs");
        Path d = new dev.felix.storage.LogId(name.tenant(), name.namespace(), name.stream(), 0, uid).resolve(logDir);
        List<String> out = new ArrayList<>();
        try (StorageRuntime rt = StorageRuntime.builder().flushThreads(1).build();
                SegmentedLog log = SegmentedLog.open(d, config, rt)) {
            long at = log.baseOffset();
            while (at < log.tailOffset()) {
                ReadResult r = log.read(at, 1000, 1 << 20);
                for (var rec : ((ReadResult.Records) r).records()) {
                    out.add(rec.offset() + "=" + new String(rec.payload(), StandardCharsets.UTF_8) + "@"
                            + log.epochOf(rec.offset()).orElse(-1));
                    at = rec.offset() + 1;
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (replication == null) {
            return;
        }
        replication.close();
        endpoint.close();
        broker.close();
        replication = null;
    }

    /** Metadata shared by the test's nodes: a node's broker closing must not close it for the others. */
    private static final class SharedMetadata implements Metadata {
        private final Metadata delegate;

        SharedMetadata(Metadata delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean tenantExists(String tenant) {
            return delegate.tenantExists(tenant);
        }

        @Override
        public boolean namespaceExists(String tenant, String namespace) {
            return delegate.namespaceExists(tenant, namespace);
        }

        @Override
        public List<String> tenants() {
            return delegate.tenants();
        }

        @Override
        public CompletableFuture<Void> createTenant(String tenant) {
            return delegate.createTenant(tenant);
        }

        @Override
        public java.util.Optional<dev.felix.core.metadata.StreamRecord> stream(StreamName name) throws FelixException {
            return delegate.stream(name);
        }

        @Override
        public List<dev.felix.core.metadata.StreamRecord> streams(String tenant, String namespace) throws FelixException {
            return delegate.streams(tenant, namespace);
        }

        @Override
        public CompletableFuture<dev.felix.core.metadata.StreamRecord> createStream(StreamName name,
                dev.felix.core.StreamConfig config) {
            return delegate.createStream(name, config);
        }

        @Override
        public CompletableFuture<dev.felix.core.metadata.StreamRecord> deleteStream(StreamName name) {
            return delegate.deleteStream(name);
        }

        @Override
        public java.util.Optional<dev.felix.core.metadata.CacheRecord> cache(dev.felix.core.cache.CacheName name)
                throws FelixException {
            return delegate.cache(name);
        }

        @Override
        public List<dev.felix.core.metadata.CacheRecord> caches(String tenant, String namespace) throws FelixException {
            return delegate.caches(tenant, namespace);
        }

        @Override
        public CompletableFuture<dev.felix.core.metadata.CacheRecord> createCache(dev.felix.core.cache.CacheName name,
                dev.felix.core.cache.CacheConfig config) {
            return delegate.createCache(name, config);
        }

        @Override
        public CompletableFuture<dev.felix.core.metadata.CacheRecord> deleteCache(dev.felix.core.cache.CacheName name) {
            return delegate.deleteCache(name);
        }
    }
}
