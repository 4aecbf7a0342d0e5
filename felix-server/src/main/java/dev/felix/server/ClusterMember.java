package dev.felix.server;

import dev.felix.cluster.ClusterView;
import dev.felix.cluster.metadata.ClusterSettings;
import dev.felix.cluster.metadata.NodeAddresses;
import dev.felix.cluster.metadata.RaftMetadata;
import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.replication.Replication;
import dev.felix.cluster.replication.ReplicationSettings;
import dev.felix.cluster.routing.ClusterRouter;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.core.CoreConfig;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.broker.Broker;
import dev.felix.server.config.BrokerConfig;
import dev.felix.server.config.ClusterConfig;
import dev.felix.server.config.ConfigException;
import dev.felix.server.config.HostPort;
import dev.felix.transport.TlsMaterial;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's membership of a cluster: its metadata replica on Raft ({@link RaftMetadata}), its shard
 * replication ({@link Replication}) and the replication endpoint other nodes fetch from
 * ({@link PeerEndpoint}). Started before the broker (the broker commits through the replication and reads
 * metadata from Raft); closed after it.
 *
 * <p><b>Threads.</b> Started and closed by the server's start and close; the parts it holds are thread-safe.
 */
final class ClusterMember implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);

    private final ClusterConfig config;
    private final RaftMetadata metadata;
    private final Replication replication;
    private final PeerEndpoint peer;
    private final PeerStreams peerStreams;
    private final HostPort quicBind;
    /** The client port chosen here, held until the server binds it ({@link #quicBindForServing}); null if set. */
    private final UdpPortHold quicHold;

    private ClusterMember(ClusterConfig config, RaftMetadata metadata, Replication replication, PeerEndpoint peer,
            PeerStreams peerStreams, HostPort quicBind, UdpPortHold quicHold) {
        this.config = config;
        this.peerStreams = peerStreams;
        this.metadata = metadata;
        this.replication = replication;
        this.peer = peer;
        this.quicBind = quicBind;
        this.quicHold = quicHold;
    }

    /**
     * Joins (or bootstraps, or rejoins) the cluster and binds the replication endpoint. Ports given as 0 are
     * chosen here, because other nodes must learn them from metadata before this node serves.
     *
     * @throws ConfigException naming the setting when the cluster settings, TLS files or data directory do not
     *                         fit, a port is taken, or no metadata quorum answers in time
     */
    static ClusterMember start(BrokerConfig broker, MeterRegistry registry) throws ConfigException {
        // Ports given as 0 are chosen now and held until their servers bind them (UdpPortHold says why).
        UdpPortHold quicHold = broker.quicBind().port() != 0 ? null
                : UdpPortHold.take(broker.quicBind().host(), "quic_bind");
        HostPort peerBind = broker.cluster().peerBind();
        // The peer port is released before its endpoint binds; closing it here only matters when the start failed.
        try (UdpPortHold peerHold = peerBind.port() != 0 ? null : UdpPortHold.take(peerBind.host(), "peer_bind")) {
            return start(broker, registry, quicHold, peerHold);
        } catch (ConfigException | RuntimeException | Error e) {
            if (quicHold != null) {
                quicHold.release();
            }
            throw e;
        }
    }

    private static ClusterMember start(BrokerConfig broker, MeterRegistry registry, UdpPortHold quicHold,
            UdpPortHold peerHold) throws ConfigException {
        ClusterConfig c = broker.cluster();
        HostPort quic = quicHold == null ? broker.quicBind() : new HostPort(broker.quicBind().host(), quicHold.port());
        int peerPort = peerHold == null ? c.peerBind().port() : peerHold.port();
        ClusterSettings settings;
        try {
            settings = ClusterSettings.builder()
                    .nodeId(c.nodeId())
                    .raftBind(metadataHostPort(c.raftBind()))
                    .raftAdvertise(c.raftAdvertise() == null ? null : metadataHostPort(c.raftAdvertise()))
                    .bootstrap(c.bootstrap())
                    .join(c.join() == null ? null : metadataHostPort(c.join()))
                    .clusterName(c.name())
                    .heartbeatInterval(c.heartbeat())
                    .failureTimeout(c.failureTimeout())
                    .requestTimeout(c.requestTimeout())
                    .startTimeout(c.startTimeout())
                    .tls(c.caKey() != null ? ClusterTls.Settings.selfIssued(c.ca(), c.caKey())
                            : ClusterTls.Settings.issued(c.ca(), c.cert(), c.key()))
                    .dataDir(broker.dataDir())
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        AtomicReference<Replication> replicationRef = new AtomicReference<>();
        RaftMetadata metadata;
        try {
            metadata = RaftMetadata.start(settings, new NodeAddresses(
                    new dev.felix.cluster.metadata.HostPort(c.advertiseHost(), quic.port()),
                    new dev.felix.cluster.metadata.HostPort(c.advertiseHost(), peerPort)),
                    () -> {
                        Replication r = replicationRef.get();
                        return r == null ? List.of() : r.reports();
                    }, registry);
        } catch (FelixException e) {
            if (e.error().code() == ErrorCode.UNAVAILABLE) {
                throw new ConfigException("could not join the cluster: " + e.getMessage() + " (check cluster_join,"
                        + " and that a majority of the members is running)");
            }
            throw new ConfigException(e.getMessage());
        }
        Replication replication = new Replication(c.nodeId(), metadata, metadata, ReplicationSettings.defaults(),
                registry);
        replicationRef.set(replication);
        PeerEndpoint peer;
        PeerStreams peerStreams = new PeerStreams(replication.acceptor());
        try {
            ClusterTls tls = metadata.tls();
            if (peerHold != null) {
                peerHold.release();
            }
            peer = PeerEndpoint.start(new InetSocketAddress(c.peerBind().host(), peerPort),
                    TlsMaterial.of(tls.privateKey(), tls.certificateChain()), tls.trustManager(),
                    broker.transportConfig(), peerStreams);
        } catch (dev.felix.transport.TransportException e) {
            replication.close();
            metadata.close();
            throw StartupChecks.bindFailed("peer_bind", new HostPort(c.peerBind().host(), peerPort), e);
        }
        LOG.info("node {} is a member of cluster {} (raft {}, peer {}:{}, {} node(s))", c.nodeId(), c.name(),
                metadata.raftAddress(), c.advertiseHost(), peerPort, metadata.nodes().size());
        return new ClusterMember(c, metadata, replication, peer, peerStreams, quic, quicHold);
    }

    /** The broker of this member: metadata from Raft, leaders from placements, commits through replication. */
    Broker broker(CoreConfig core) {
        Broker broker = new Broker(core, metadata, new ClusterRouter(metadata, metadata), replication);
        replication.start(broker, peer);
        peerStreams.broker(broker); // from now on this node serves relay streams of the shards it leads
        return broker;
    }

    /** The endpoint other nodes replicate and relay through; this node opens its relay streams on it too. */
    PeerEndpoint peer() {
        return peer;
    }

    ClusterView view() {
        return metadata;
    }

    Replication replication() {
        return replication;
    }

    RaftMetadata metadata() {
        return metadata;
    }

    /**
     * The QUIC address to bind, its port chosen here when configured as 0 and held until now: the caller binds it
     * right after this returns.
     */
    HostPort quicBindForServing() {
        if (quicHold != null) {
            quicHold.release();
        }
        return quicBind;
    }

    String nodeId() {
        return config.nodeId();
    }

    /**
     * Before a clean stop: hands every shard this node leads to a replica that holds its whole log, so
     * {@code leader} shards stay available and {@code quorum} shards need not wait for failure detection.
     * Bounded by {@code timeout}; what cannot be handed off fails over as if this node were lost.
     */
    void handOffLeaderships(Duration timeout) {
        int handed = replication.handOffAll(timeout);
        if (handed > 0) {
            LOG.info("handed off the leadership of {} shard(s) before stopping", handed);
        }
    }

    /**
     * Stops following other leaders (replica logs closed) before the broker closes its storage: a follower
     * still fetching would otherwise append to a closed storage runtime. Idempotent.
     */
    void stopReplicas() {
        if (!replicasStopped) {
            replicasStopped = true;
            replication.close();
        }
    }

    /**
     * Stops replication, then the replication endpoint and the metadata; the broker has closed its shards by
     * now (their commit gates told their followers over the still-open endpoint).
     */
    @Override
    public void close() {
        if (quicHold != null) {
            quicHold.release(); // the server never bound it (its start failed first)
        }
        stopReplicas();
        peer.close();
        metadata.close();
    }

    private boolean replicasStopped;

    /** The server configuration's address as the metadata layer's own type. */
    private static dev.felix.cluster.metadata.HostPort metadataHostPort(HostPort a) {
        return new dev.felix.cluster.metadata.HostPort(a.host(), a.port());
    }

    @Override
    public String toString() {
        return "ClusterMember[" + config.nodeId() + "]";
    }

    static Duration handOffTimeout(BrokerConfig config) {
        return config.shutdownTimeout().dividedBy(2);
    }
}
