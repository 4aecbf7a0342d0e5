package dev.felix.server.config;

import dev.felix.cluster.metadata.ClusterSettings;
import dev.felix.cluster.relay.RelaySettings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How this node joins a cluster; absent from {@link BrokerConfig#cluster()} for a single node. Immutable and
 * thread-safe; its {@link Builder} is for one thread.
 *
 * <p>{@link ConfigLoader} builds it from the {@code cluster_*}, {@code node_id}, {@code raft_bind} and
 * {@code peer_bind} settings (see {@link Settings}); an embedding program uses {@link #builder()}. Each option
 * checks its value at the call; the canonical constructor (and so {@link Builder#build()}) checks what is required
 * and the rules between settings, with an {@link IllegalArgumentException} naming the settings and the way out.
 *
 * @param nodeId           persisted id of this node, unique in the cluster
 * @param raftBind         Raft (metadata) endpoint; port 0 = pick a free port once and keep it
 * @param raftAdvertise    {@code host:port} other nodes dial for the Raft endpoint when not {@code raftBind} (a
 *                         forwarded port); null = {@code raftBind}
 * @param peerBind         replication endpoint (QUIC, mutual TLS); port 0 = any free port
 * @param advertiseHost    host other nodes and clients reach this node at
 * @param bootstrap        form a new cluster with this node as its first member
 * @param join             {@code host:port} of any member's Raft endpoint to join (null with bootstrap or on
 *                         a restart of a member)
 * @param name             cluster name (the Raft group is derived from it)
 * @param ca               the cluster CA certificate (PEM): peers must present a certificate it issued
 * @param caKey            the CA's private key (PEM): this node issues its own certificate with it; or null
 * @param cert             this node's certificate (PEM) issued by the CA; or null with {@code caKey}
 * @param key              the private key of {@code cert}
 * @param heartbeat        how often this node tells the metadata leader it is alive
 * @param failureTimeout   a node silent this long is declared down
 * @param requestTimeout   a metadata write not committed within this fails with {@code unavailable}
 * @param startTimeout     how long a start may wait to register with the cluster; at least {@code requestTimeout}
 * @param relaySubscribe   {@code cluster_relay_subscribe}: serve subscribes for shards led elsewhere through this
 *                         node's relay (experimental; default off)
 * @param relay            the relay's tuning ({@code cluster_relay_*}); null = its defaults
 */
public record ClusterConfig(String nodeId, HostPort raftBind, HostPort raftAdvertise, HostPort peerBind,
                            String advertiseHost, boolean bootstrap, HostPort join, String name, Path ca, Path caKey, Path cert, Path key, Duration heartbeat,
                            Duration failureTimeout, Duration requestTimeout, Duration startTimeout,
                            boolean relaySubscribe, RelaySettings relay) {

    /** Default {@code cluster_name}: {@code felix}. */
    public static final String DEFAULT_NAME = "felix";
    // The timings' defaults are the metadata layer's own (ClusterSettings), kept there only.
    /** Default {@code cluster_heartbeat_ms}: 500 ms. */
    public static final Duration DEFAULT_HEARTBEAT = ClusterSettings.DEFAULT_HEARTBEAT_INTERVAL;
    /** Default {@code cluster_failure_timeout_ms}: 2 s (four heartbeats). */
    public static final Duration DEFAULT_FAILURE_TIMEOUT = ClusterSettings.DEFAULT_FAILURE_TIMEOUT;
    /** Default {@code cluster_request_timeout_ms}: 5 s. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = ClusterSettings.DEFAULT_REQUEST_TIMEOUT;
    /** Default {@code cluster_start_timeout_ms}: 60 s. */
    public static final Duration DEFAULT_START_TIMEOUT = ClusterSettings.DEFAULT_START_TIMEOUT;

    public ClusterConfig {
        if (relay == null) {
            relay = RelaySettings.defaults();
        }
        if (nodeId == null) {
            throw new IllegalArgumentException("node_id is required when raft_bind is set (e.g. --node-id n1)");
        }
        checkText(Settings.NODE_ID, nodeId);
        required(Settings.RAFT_BIND, raftBind);
        required(Settings.PEER_BIND, peerBind);
        required(Settings.ADVERTISE_HOST, advertiseHost);
        checkText(Settings.CLUSTER_NAME, required(Settings.CLUSTER_NAME, name));
        if (ca == null) {
            throw new IllegalArgumentException("cluster_ca_cert is required when raft_bind is set: the CA certificate"
                    + " (PEM) that issues every node's certificate (felix cluster ca creates one)");
        }
        checkMillis(Settings.CLUSTER_HEARTBEAT_MS, heartbeat);
        checkMillis(Settings.CLUSTER_FAILURE_TIMEOUT_MS, failureTimeout);
        checkMillis(Settings.CLUSTER_REQUEST_TIMEOUT_MS, requestTimeout);
        checkMillis(Settings.CLUSTER_START_TIMEOUT_MS, startTimeout);
        if (bootstrap && join != null) {
            throw new IllegalArgumentException("cluster_bootstrap and cluster_join are exclusive: bootstrap the first"
                    + " node, join the others to it");
        }
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("cluster_node_cert and cluster_node_key must be set together");
        }
        if ((cert == null) == (caKey == null)) {
            throw new IllegalArgumentException("set either cluster_node_cert and cluster_node_key (a certificate"
                    + " issued by cluster_ca_cert) or cluster_ca_key (this node issues its own), not "
                    + (cert == null ? "neither" : "both"));
        }
        if (failureTimeout.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("cluster_failure_timeout_ms (" + failureTimeout.toMillis()
                    + ") must be at least twice cluster_heartbeat_ms (" + heartbeat.toMillis() + ")");
        }
        if (startTimeout.compareTo(requestTimeout) < 0) {
            throw new IllegalArgumentException("cluster_start_timeout_ms (" + startTimeout.toMillis()
                    + ") must be at least cluster_request_timeout_ms (" + requestTimeout.toMillis() + "): a start"
                    + " makes metadata writes of its own");
        }
    }

    /** A builder holding the defaults; node id, Raft bind, advertise host, CA and certificates must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.nodeId = nodeId;
        b.raftBind = raftBind;
        b.raftAdvertise = raftAdvertise;
        b.peerBind = peerBind;
        b.advertiseHost = advertiseHost;
        b.bootstrap = bootstrap;
        b.join = join;
        b.name = name;
        b.ca = ca;
        b.caKey = caKey;
        b.cert = cert;
        b.key = key;
        b.heartbeat = heartbeat;
        b.failureTimeout = failureTimeout;
        b.requestTimeout = requestTimeout;
        b.startTimeout = startTimeout;
        b.relaySubscribe = relaySubscribe;
        b.relay = relay;
        return b;
    }

    private static <T> T required(Setting<?> setting, T value) {
        if (value == null) {
            throw new IllegalArgumentException(setting.key() + " must be set, was null");
        }
        return value;
    }

    private static String checkText(Setting<?> setting, String value) {
        required(setting, value);
        try {
            setting.parser().apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting.key() + " " + e.getMessage(), e);
        }
        return value;
    }

    private static Duration checkMillis(Setting<?> setting, Duration value) {
        required(setting, value);
        checkText(setting, Long.toString(value.toMillis()));
        return value;
    }

    /** Builds a {@link ClusterConfig}; each option checks its value at the call. Not thread-safe. */
    public static final class Builder {
        private String nodeId;
        private HostPort raftBind;
        private HostPort raftAdvertise;
        private HostPort peerBind;
        private String advertiseHost;
        private boolean bootstrap;
        private HostPort join;
        private String name = DEFAULT_NAME;
        private Path ca;
        private Path caKey;
        private Path cert;
        private Path key;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private Duration failureTimeout = DEFAULT_FAILURE_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private boolean relaySubscribe;
        private RelaySettings relay = RelaySettings.defaults();

        private Builder() {
        }

        /** {@code node_id}: this node's id, unique in the cluster; required. */
        public Builder nodeId(String id) {
            this.nodeId = checkText(Settings.NODE_ID, id);
            return this;
        }

        /**
         * {@code raft_bind}: the Raft endpoint; required. The replication endpoint defaults to its host, any free
         * port, unless {@link #peerBind} is set.
         */
        public Builder raftBind(HostPort bind) {
            this.raftBind = required(Settings.RAFT_BIND, bind);
            if (peerBind == null) {
                peerBind = new HostPort(bind.host(), 0);
            }
            return this;
        }

        /** {@code raft_advertise}: where other nodes dial the Raft endpoint, when not at its bind; null = there. */
        public Builder raftAdvertise(HostPort address) {
            this.raftAdvertise = address;
            return this;
        }

        /** {@code peer_bind}: the replication endpoint; default the Raft host, any free port. */
        public Builder peerBind(HostPort bind) {
            this.peerBind = required(Settings.PEER_BIND, bind);
            return this;
        }

        /** {@code advertise_host}: the host other nodes and clients reach this node at; required. */
        public Builder advertiseHost(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("advertise_host must not be blank, was '" + host + "'");
            }
            this.advertiseHost = host;
            return this;
        }

        /** {@code cluster_bootstrap}: form a new cluster with this node as its first member; default false. */
        public Builder bootstrap(boolean value) {
            this.bootstrap = value;
            return this;
        }

        /** {@code cluster_join}: a member's Raft endpoint to join through; null (the default) for none. */
        public Builder join(HostPort member) {
            this.join = member;
            return this;
        }

        /** {@code cluster_name}: the same on every member; default {@code felix}. */
        public Builder name(String value) {
            this.name = checkText(Settings.CLUSTER_NAME, value);
            return this;
        }

        /** {@code cluster_ca_cert}: the cluster CA certificate (PEM); required. */
        public Builder ca(Path value) {
            this.ca = required(Settings.CLUSTER_CA_CERT, value);
            return this;
        }

        /** {@code cluster_ca_key}: the CA key, so this node issues its own certificate (instead of {@link #cert}). */
        public Builder caKey(Path value) {
            this.caKey = value;
            return this;
        }

        /** {@code cluster_node_cert} and {@code cluster_node_key}: a certificate the CA issued (instead of a CA key). */
        public Builder cert(Path certificate, Path privateKey) {
            this.cert = certificate;
            this.key = privateKey;
            return this;
        }

        /** {@code cluster_heartbeat_ms}: 50 ms..60 s; default 500 ms. */
        public Builder heartbeat(Duration interval) {
            this.heartbeat = checkMillis(Settings.CLUSTER_HEARTBEAT_MS, interval);
            return this;
        }

        /** {@code cluster_failure_timeout_ms}: 200 ms..10 min, at least twice the heartbeat; default 2 s. */
        public Builder failureTimeout(Duration timeout) {
            this.failureTimeout = checkMillis(Settings.CLUSTER_FAILURE_TIMEOUT_MS, timeout);
            return this;
        }

        /** {@code cluster_request_timeout_ms}: 100 ms..10 min; default 5 s. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = checkMillis(Settings.CLUSTER_REQUEST_TIMEOUT_MS, timeout);
            return this;
        }

        /** {@code cluster_start_timeout_ms}: 100 ms..24 h, at least the request timeout; default 60 s. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = checkMillis(Settings.CLUSTER_START_TIMEOUT_MS, timeout);
            return this;
        }

        /**
         * {@code cluster_relay_subscribe}: serve a subscribe for a shard another node leads through this node's relay
         * (one upstream per shard, fanned out here) instead of answering {@code not_leader}; default false.
         */
        public Builder relaySubscribe(boolean value) {
            this.relaySubscribe = value;
            return this;
        }

        /** {@code cluster_relay_*}: the relay's tuning, checked by {@link RelaySettings}; default its defaults. */
        public Builder relay(RelaySettings settings) {
            this.relay = required(Settings.CLUSTER_RELAY_WORKERS, settings);
            return this;
        }

        public ClusterConfig build() {
            return new ClusterConfig(nodeId, raftBind, raftAdvertise, peerBind, advertiseHost, bootstrap, join, name,
                    ca, caKey, cert, key, heartbeat, failureTimeout, requestTimeout, startTimeout, relaySubscribe, relay);
        }
    }
}
