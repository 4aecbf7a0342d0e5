package dev.felix.server.config;

import dev.felix.core.CoreConfig;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A broker's typed configuration, resolved from defaults, YAML, environment and flags by
 * {@link ConfigLoader}. Every field is documented on its {@link Settings} entry.
 */
public record BrokerConfig(
        Path dataDir,
        HostPort quicBind,
        HostPort httpBind,
        boolean insecure,
        Map<String, List<String>> authTokens,
        Path tlsCert,
        Path tlsKey,
        int maxFrameBytes,
        boolean autoCreate,
        int shardThreads,
        boolean inlineWriters,
        long segmentBytes,
        boolean repairCorruptTail,
        Duration retentionCheck,
        int storageFlushThreads,
        int ringEvents,
        long ringBytes,
        QueueLimits writerQueue,
        QueueLimits subscriberQueue,
        QueuePolicy subscriberQueuePolicy,
        Settings.IngressPolicy ingressPolicy,
        long connWindowBytes,
        long streamWindowBytes,
        long maxStreams,
        Duration idleTimeout,
        int maxUdpPayloadBytes,
        Duration shutdownTimeout,
        ClusterConfig cluster) {

    public BrokerConfig {
        authTokens = Map.copyOf(authTokens);
    }

    /** Whether this node is a member of a cluster ({@link #cluster()} is set). */
    public boolean clustered() {
        return cluster != null;
    }

    /** Dev mode: no authentication configured; any {@code auth} is accepted (loopback only). */
    public boolean devMode() {
        return authTokens.isEmpty();
    }

    /** The defaults, as {@code felix server} with no configuration uses them. */
    public static BrokerConfig defaults() {
        try {
            return ConfigLoader.load(null, Map.of(), Map.of());
        } catch (ConfigException e) {
            throw new IllegalStateException("built-in defaults are invalid: " + e.getMessage(), e);
        }
    }

    public CoreConfig coreConfig() {
        return new CoreConfig(shardThreads, ringEvents, ringBytes, writerQueue, subscriberQueue,
                subscriberQueuePolicy, QueuePolicy.CATCH_UP, CoreConfig.defaults().maxBatchEvents(),
                CoreConfig.defaults().maxBatchBytes(), autoCreate, autoCreate || devMode(), inlineWriters,
                new CoreConfig.Storage(dataDir, segmentBytes, repairCorruptTail, storageFlushThreads, retentionCheck));
    }

    public TransportConfig transportConfig() {
        return new TransportConfig(connWindowBytes, streamWindowBytes, maxStreams, maxStreams, idleTimeout,
                maxUdpPayloadBytes, 1);
    }

    /** A copy with other bind addresses (tests bind to port 0). */
    public BrokerConfig withBinds(HostPort quic, HostPort http) {
        return new BrokerConfig(dataDir, quic, http, insecure, authTokens, tlsCert, tlsKey, maxFrameBytes,
                autoCreate, shardThreads, inlineWriters, segmentBytes, repairCorruptTail, retentionCheck, storageFlushThreads,
                ringEvents, ringBytes, writerQueue, subscriberQueue,
                subscriberQueuePolicy, ingressPolicy, connWindowBytes, streamWindowBytes, maxStreams, idleTimeout,
                maxUdpPayloadBytes, shutdownTimeout, cluster);
    }

    public BrokerConfig withDataDir(Path dir) {
        return new BrokerConfig(dir, quicBind, httpBind, insecure, authTokens, tlsCert, tlsKey, maxFrameBytes,
                autoCreate, shardThreads, inlineWriters, segmentBytes, repairCorruptTail, retentionCheck, storageFlushThreads,
                ringEvents, ringBytes, writerQueue, subscriberQueue,
                subscriberQueuePolicy, ingressPolicy, connWindowBytes, streamWindowBytes, maxStreams, idleTimeout,
                maxUdpPayloadBytes, shutdownTimeout, cluster);
    }
}
