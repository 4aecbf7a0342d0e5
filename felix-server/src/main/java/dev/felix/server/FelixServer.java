package dev.felix.server;

import dev.felix.core.CoreConfig;
import dev.felix.core.broker.Broker;
import dev.felix.core.metadata.LocalMetadata;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.routing.LocalRouter;
import dev.felix.core.routing.Router;
import dev.felix.core.stream.ShardInfo;
import dev.felix.core.stream.Stream;
import dev.felix.server.admin.AdminHttpServer;
import dev.felix.server.auth.Authenticator;
import dev.felix.server.auth.DevModeAuthenticator;
import dev.felix.server.auth.StaticTokenAuthenticator;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ConfigException;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.server.protocol.ServerContext;
import dev.felix.server.protocol.StreamInitializers;
import dev.felix.storage.DataDirLock;
import dev.felix.transport.DirectBuffers;
import dev.felix.transport.QuicServer;
import dev.felix.transport.TlsMaterial;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running broker node: QUIC listener, broker core, admin HTTP.
 *
 * <p><b>Threads and buffers.</b> {@link #start} and {@link #close} run on the caller's thread (close may be called
 * from any thread, more than once; a signal handler's thread does). The readiness and lifecycle fields are
 * volatile because the admin HTTP threads read them. It touches no {@code ByteBuf}s itself.
 *
 * <p>{@link #start} returns once every endpoint is bound and the node is ready. {@link #close} drains:
 * readiness flips to false, new connections are refused, publishes already accepted finish and are
 * acknowledged (bounded by {@code shutdown_timeout_ms}), then connections close with reason
 * "broker shutting down" and the core stops.
 */
public final class FelixServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FelixServer.class);

    private final BrokerConfig config;
    private final Broker broker;
    private final BrokerMetrics metrics;
    private final ServerContext context;
    private final QuicServer quic;
    private final AdminHttpServer http;
    private final TlsMaterial tls;
    private final Path certificateFile;
    private volatile boolean ready;
    private volatile boolean closed;
    private volatile DataDirLock dataDirLock;
    /** This node's cluster membership, or null for a single node. */
    private volatile ClusterMember member;
    /** Subscribes relayed from other nodes' shards ({@code cluster_relay_subscribe}), or null. */
    private volatile dev.felix.server.protocol.RelayedShards relayed;
    private volatile IdleMemory idleMemory;
    /** What this process's heap sits on, read once at start for the gauge and the banner. */
    private volatile HeapPages.Report heapPages;
    private volatile dev.felix.transport.NettyMemoryAccess.Report nettyMemory;

    private FelixServer(BrokerConfig config, Broker broker, BrokerMetrics metrics, ServerContext context,
            QuicServer quic, AdminHttpServer http, TlsMaterial tls, Path certificateFile) {
        this.config = config;
        this.broker = broker;
        this.metrics = metrics;
        this.context = context;
        this.quic = quic;
        this.http = http;
        this.tls = tls;
        this.certificateFile = certificateFile;
    }

    /**
     * Starts a node.
     *
     * @throws ConfigException naming the setting when {@code data_dir} is unusable or in use by another broker
     *                         (it is locked for the node's life, see {@link DataDirLock}), a port is taken or the
     *                         TLS files are unusable
     */
    public static FelixServer start(BrokerConfig config) throws Exception {
        return start(config, null, null);
    }

    /**
     * Starts a node whose metadata and router come from elsewhere (a cluster member's replicated ones); null
     * for either means the single-node one (files under the data directory; this node leads everything).
     */
    public static FelixServer start(BrokerConfig config, Metadata metadata, Router router) throws Exception {
        StartupChecks.dataDirectory(config.dataDir());
        DataDirLock lock = DataDirLock.acquire(config.dataDir());
        try {
            FelixServer server = startLocked(config, metadata, router);
            server.dataDirLock = lock;
            return server;
        } catch (Exception | Error e) {
            lock.close();
            throw e;
        }
    }

    private static FelixServer startLocked(BrokerConfig config, Metadata metadata, Router router) throws Exception {
        CoreConfig core = config.coreConfig();
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry = BrokerMetrics.newRegistry();
        ClusterMember member = null;
        Broker broker;
        if (config.clustered() && metadata == null) {
            member = ClusterMember.start(config, registry);
            broker = member.broker(core);
        } else {
            broker = new Broker(core,
                    metadata != null ? metadata : LocalMetadata.at(config.dataDir()),
                    router != null ? router : new LocalRouter());
        }
        try {
            return serve(config, core, registry, member, broker);
        } catch (Exception | Error e) {
            broker.close();
            if (member != null) {
                member.close();
            }
            throw e;
        }
    }

    /** The rest of a start, once the broker (and cluster membership) exist: TLS, metrics, listeners. */
    private static FelixServer serve(BrokerConfig config, CoreConfig core,
            io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry, ClusterMember member, Broker broker)
            throws Exception {
        TlsMaterial tls;
        Path certFile;
        if (member != null && config.tlsCert() == null) {
            // A cluster member shows clients its node certificate, issued by the cluster CA: clients trust
            // the CA once for every node (a redirect may send them to any of them).
            dev.felix.cluster.tls.ClusterTls clusterTls = member.metadata().tls();
            tls = TlsMaterial.of(clusterTls.privateKey(), clusterTls.certificateChain());
            certFile = config.cluster().ca();
        } else if (config.tlsCert() != null) {
            try {
                tls = TlsMaterial.loadPem(config.tlsCert(), config.tlsKey());
            } catch (dev.felix.transport.TlsException e) {
                throw new ConfigException("tls_cert " + config.tlsCert() + " / tls_key " + config.tlsKey()
                        + " cannot be used: " + e.getMessage());
            }
            certFile = config.tlsCert();
        } else {
            Path dir = config.dataDir().resolve("tls");
            try {
                tls = TlsMaterial.loadOrGenerate(dir, extraNames(config));
            } catch (dev.felix.transport.TlsException e) {
                throw new ConfigException("the development certificate under data_dir " + config.dataDir()
                        + " cannot be loaded or generated: " + e.getMessage() + " (delete " + dir
                        + " to generate a new one, or set tls_cert and tls_key)");
            }
            certFile = dir.resolve(TlsMaterial.CERT_FILE);
            if (tls.generated()) {
                LOG.info("generated a self-signed development certificate at {}", certFile);
            }
        }
        // The tenants authentication names exist: a client with a valid token can create streams in them.
        for (String tenant : config.authTokens().keySet()) {
            broker.metadata().createTenant(tenant).join();
        }
        ServerContext[] contextRef = new ServerContext[1];
        BrokerMetrics metrics = new BrokerMetrics(registry, broker.metrics(),
                broker.storage() == null ? null : broker.storage().metrics(),
                () -> contextRef[0].subscriptionCount(),
                () -> contextRef[0].subscriberQueueEvents(),
                () -> writerQueued(broker),
                () -> contextRef[0].connectionCount());
        metrics.bindCaches(broker.caches());
        Authenticator auth = config.devMode() ? new DevModeAuthenticator(config.insecure())
                : new StaticTokenAuthenticator(config.authTokens());
        dev.felix.server.protocol.RelayedShards relayed = member != null && config.cluster().relaySubscribe()
                ? dev.felix.server.protocol.RelayedShards.start(broker, member.view(), member.peer(),
                        config.cluster().relay(), registry, member.replication()) : null;
        ServerContext context = new ServerContext(broker, config, auth, metrics,
                member == null ? null : member.view(), member == null ? null : member.replication(), relayed);
        contextRef[0] = context;
        QuicServer quic = null;
        try {
            dev.felix.server.config.HostPort quicBind = member != null ? member.quicBindForServing() : config.quicBind();
            try {
                quic = QuicServer.bind(quicBind.toSocketAddress(), config.transportConfig(), tls, null,
                        StreamInitializers.connections(context), StreamInitializers.streams(context));
            } catch (dev.felix.transport.TransportException e) {
                throw StartupChecks.bindFailed("quic_bind", quicBind, e);
            }
            // shard_executor inline: a publish read on one of these loops is batched and fanned out there, with no
            // hop to the shard pool (a publish that arrives before its loop ran this simply uses the pool).
            for (io.netty.util.concurrent.EventExecutor loop : quic.eventLoops()) {
                loop.execute(dev.felix.core.writer.WriterLoop::allowInlineOnThisThread);
            }
            FelixServer[] self = new FelixServer[1];
            AdminHttpServer http;
            try {
                http = AdminHttpServer.start(config.httpBind().toSocketAddress(),
                        () -> self[0] != null && self[0].ready, metrics::scrape);
            } catch (IOException e) {
                throw StartupChecks.bindFailed("http_bind", config.httpBind(), e);
            }
            FelixServer server = new FelixServer(config, broker, metrics, context, quic, http, tls, certFile);
            server.member = member;
            server.relayed = relayed;
            PayloadPressure pressure = new PayloadPressure(broker, context.payloadBlocks(), metrics,
                    config.pooledPayloadsSlackBytes());
            server.idleMemory = new IdleMemory(context::connectionCount, quic.eventLoops(), context.payloadBlocks(),
                    pressure::check);
            metrics.bindPayloadBlocks(context.payloadBlocks()::blockBytes, context.payloadBlocks()::inUseBytes);
            metrics.bindIdleMemory(server.idleMemory::trims, IdleMemory::nettyDirectMemory,
                    DirectBuffers::largeBuffersCachedBytes);
            metrics.bindHeapSoftMax(HeapSoftMax::current);
            server.heapPages = HeapPages.current();
            metrics.bindHeapHugePages(server.heapPages.huge());
            server.nettyMemory = dev.felix.transport.NettyMemoryAccess.current();
            metrics.bindNettyMemory(server.nettyMemory.unsafe(), server.nettyMemory.ownAllocation());
            bindUdpCounters(metrics, "clients", quic::udpCounters);
            if (member != null) {
                bindUdpCounters(metrics, "peers", member.peer()::udpCounters);
                bindUdpCounters(metrics, "peers-outgoing", member.peer()::outgoingUdpCounters);
            }
            self[0] = server;
            server.ready = true;
            LOG.info("felix listening on quic {} (TLS 1.3, ALPN felix/1), admin http {}; {}",
                    quic.localAddress(), http.address(), config.devMode()
                            ? "dev mode: any auth is accepted, streams are created on first use"
                            : "authentication: static tokens for " + config.authTokens().size() + " tenant(s)");
            LOG.info("certificate {} SHA-256 fingerprint {}", certFile, tls.fingerprint());
            return server;
        } catch (Exception e) {
            if (quic != null) {
                quic.close();
            }
            if (relayed != null) {
                relayed.close();
            }
            context.payloadBlocks().close();
            metrics.close();
            throw e;
        }
    }

    private static List<String> extraNames(BrokerConfig config) {
        List<String> names = new ArrayList<>();
        String host = config.quicBind().host();
        try {
            if (!InetAddress.getByName(host).isAnyLocalAddress()) {
                names.add(host);
            }
        } catch (IOException e) {
            names.add(host);
        }
        return names;
    }

    private static long writerQueued(Broker broker) {
        long total = 0;
        for (Stream s : broker.streams()) {
            for (ShardInfo i : s.info().shards()) {
                total += i.writerQueued();
            }
        }
        return total;
    }

    public InetSocketAddress quicAddress() {
        return quic.localAddress();
    }

    public InetSocketAddress httpAddress() {
        return http.address();
    }

    /** SHA-256 fingerprint of the certificate clients see. */
    public String fingerprint() {
        return tls.fingerprint();
    }

    /** The PEM file clients can trust. */
    public Path certificateFile() {
        return certificateFile;
    }

    public TlsMaterial tls() {
        return tls;
    }

    public Broker broker() {
        return broker;
    }

    public BrokerConfig config() {
        return config;
    }

    public BrokerMetrics metrics() {
        return metrics;
    }

    /** This node's id and view of the cluster, or null for a single node. */
    public dev.felix.cluster.ClusterView cluster() {
        ClusterMember m = member;
        return m == null ? null : m.view();
    }

    /** What this process's heap sits on, as read when the server started (see {@link HeapPages}). */
    public HeapPages.Report heapPages() {
        return heapPages;
    }

    /** How Netty reaches direct memory in this process, as read when the server started (see NettyMemoryAccess). */
    public dev.felix.transport.NettyMemoryAccess.Report nettyMemory() {
        return nettyMemory;
    }

    /** The idle-memory trimmer (see {@link IdleMemory}). */
    public IdleMemory idleMemory() {
        return idleMemory;
    }

    public boolean ready() {
        return ready;
    }

    /** Drains and stops the node; see the class comment. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ready = false;
        idleMemory.close();
        context.startDraining();
        LOG.info("draining: {} connection(s), {} subscription(s), {} queued publish event(s)",
                context.connectionCount(), context.subscriptionCount(), writerQueued(broker));
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (writerQueued(broker) > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10); // shutdown path only: wait for accepted publishes to be processed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (member != null) {
            member.handOffLeaderships(ClusterMember.handOffTimeout(config));
        }
        LOG.info("closing connections");
        context.closeConnections(dev.felix.wire.CloseReasons.SHUTTING_DOWN, 2_000);
        if (relayed != null) {
            relayed.close(); // its upstreams to other nodes' shards, after its subscribers were ended
        }
        if (member != null) {
            member.stopReplicas(); // before the broker closes the storage the replica logs write to
        }
        broker.close();
        if (member != null) {
            member.close();
        }
        quic.close();
        context.payloadBlocks().close(); // after the event loops that copy into it stopped
        http.close();
        metrics.close();
        dataDirLock.close();
        LOG.info("felix stopped");
    }

    /** Exports a listener's kernel UDP counters, where they can be read (Linux, epoll). */
    private static void bindUdpCounters(BrokerMetrics metrics, String listener,
            java.util.function.Supplier<java.util.Optional<dev.felix.transport.UdpSocketCounters.Reading>> counters) {
        if (counters.get().isEmpty()) {
            LOG.info("the kernel's UDP counters cannot be read here (they need Linux and the epoll transport):"
                    + " felix_udp_receive_drops_total{listener=\"{}\"} is not exported", listener);
            return;
        }
        metrics.bindUdpCounters(listener, () -> counters.get().map(r -> r.drops()).orElse(0L),
                () -> counters.get().map(r -> r.queuedBytes()).orElse(0L));
    }

}
