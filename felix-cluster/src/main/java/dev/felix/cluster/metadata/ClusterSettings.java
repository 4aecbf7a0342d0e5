package dev.felix.cluster.metadata;

import dev.felix.cluster.tls.ClusterTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a node takes part in a cluster. Immutable and thread-safe; the {@link Builder} is for one thread.
 *
 * <p>Every value is checked when the record is built (by the constructor, so
 * {@link Builder#build()} and a direct construction agree); a bad one throws {@link IllegalArgumentException}
 * whose message names the setting (the names of the {@code felix server} configuration, e.g.
 * {@code cluster_bootstrap and cluster_join are exclusive}) and the way out.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #NODE_ID}</td><td>required</td><td>this node's id, {@code [a-z0-9][a-z0-9-]{0,62}};
 *       persisted in {@code <data>/cluster/node.json}, a later start with another id fails</td></tr>
 *   <tr><td>{@value #RAFT_BIND}</td><td>required</td><td>{@code host:port} of this node's Raft endpoint; the
 *       host must be one other nodes can dial (it is what they are told), unless {@value #RAFT_ADVERTISE} is set;
 *       port 0 picks a free port on first start and persists it, so a restart binds the same one</td></tr>
 *   <tr><td>{@value #RAFT_ADVERTISE}</td><td>{@value #RAFT_BIND}</td><td>{@code host:port} other nodes dial
 *       for this node's Raft endpoint, when that is not {@value #RAFT_BIND} (a port forwarded through NAT or a
 *       proxy); kept in {@code node.json} with the bound address, and a later start must give the same</td></tr>
 *   <tr><td>{@value #BOOTSTRAP}</td><td>false</td><td>the first node: forms a one-node cluster on its first
 *       start</td></tr>
 *   <tr><td>{@value #JOIN}</td><td>none</td><td>{@code host:port} of any member's Raft endpoint: joins through
 *       it on first start. One of {@value #BOOTSTRAP} and {@value #JOIN} is needed on a node's first start;
 *       a restart needs neither (its membership is in its data dir)</td></tr>
 *   <tr><td>{@value #CLUSTER_NAME}</td><td>{@code felix}</td><td>the cluster's name; its Raft group id is
 *       derived from it, so nodes of differently named clusters never talk</td></tr>
 *   <tr><td>{@value #HEARTBEAT_INTERVAL}</td><td>500 ms</td><td>how often a node tells the Raft leader it is
 *       alive (with its replica reports)</td></tr>
 *   <tr><td>{@value #FAILURE_TIMEOUT}</td><td>2 s</td><td>a node silent this long is declared down (at
 *       least twice the heartbeat interval)</td></tr>
 *   <tr><td>{@value #REQUEST_TIMEOUT}</td><td>5 s</td><td>a metadata write not committed within this fails
 *       with {@code unavailable}</td></tr>
 *   <tr><td>{@value #START_TIMEOUT}</td><td>60 s</td><td>how long a start may wait to register with the
 *       cluster (a quorum must answer)</td></tr>
 *   <tr><td>{@code cluster_ca_cert} …</td><td>required</td><td>inter-node TLS, {@link ClusterTls.Settings}</td></tr>
 *   <tr><td>{@value #DATA_DIR}</td><td>required</td><td>the node's data dir; cluster state lives under
 *       {@code <data>/cluster/}</td></tr>
 * </table>
 */
public record ClusterSettings(String nodeId, HostPort raftBind, HostPort raftAdvertise, boolean bootstrap,
                              HostPort join, String clusterName, Duration heartbeatInterval,
                              Duration failureTimeout, Duration requestTimeout, Duration startTimeout,
                              ClusterTls.Settings tls, Path dataDir) {

    public static final String NODE_ID = "node_id";
    public static final String RAFT_BIND = "raft_bind";
    public static final String RAFT_ADVERTISE = "raft_advertise";
    public static final String BOOTSTRAP = "cluster_bootstrap";
    public static final String JOIN = "cluster_join";
    public static final String CLUSTER_NAME = "cluster_name";
    public static final String HEARTBEAT_INTERVAL = "cluster_heartbeat_ms";
    public static final String FAILURE_TIMEOUT = "cluster_failure_timeout_ms";
    public static final String REQUEST_TIMEOUT = "cluster_request_timeout_ms";
    public static final String START_TIMEOUT = "cluster_start_timeout_ms";
    public static final String DATA_DIR = "data_dir";

    public static final String DEFAULT_CLUSTER_NAME = "felix";
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(500);
    public static final Duration DEFAULT_FAILURE_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);
    /** Shortest heartbeat interval (a faster one only burns the Raft leader's CPU). */
    public static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofMillis(20);

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    public ClusterSettings {
        if (nodeId == null || nodeId.isEmpty()) {
            throw new IllegalArgumentException(NODE_ID + " is required in cluster mode: a name for this node,"
                    + " unique in the cluster, e.g. node-1");
        }
        if (!ID.matcher(nodeId).matches()) {
            throw new IllegalArgumentException(NODE_ID + " '" + nodeId + "' must be 1-63 characters of a-z, 0-9"
                    + " and '-', starting with a letter or digit");
        }
        if (raftBind == null) {
            throw new IllegalArgumentException(RAFT_BIND + " is required in cluster mode: HOST:PORT of this node's"
                    + " Raft endpoint (port 0 picks a free one once and keeps it)");
        }
        if (raftBind.wildcard() && raftAdvertise == null) {
            throw new IllegalArgumentException(RAFT_BIND + " " + raftBind + " must name an address other nodes can"
                    + " dial (it is what they are told), not a wildcard address; or set " + RAFT_ADVERTISE
                    + " to the address they dial");
        }
        if (raftAdvertise != null && (raftAdvertise.wildcard() || raftAdvertise.port() == 0)) {
            throw new IllegalArgumentException(RAFT_ADVERTISE + " " + raftAdvertise + " must be an address other"
                    + " nodes can dial: a concrete host and port, not a wildcard address or port 0");
        }
        if (bootstrap && join != null) {
            throw new IllegalArgumentException(BOOTSTRAP + " and " + JOIN + " are exclusive: bootstrap the first"
                    + " node only, and let every other node join through a member (" + JOIN + " " + join + ")");
        }
        if (join != null && join.port() == 0) {
            throw new IllegalArgumentException(JOIN + " " + join + " must name a member's Raft port, not 0");
        }
        if (clusterName == null) {
            clusterName = DEFAULT_CLUSTER_NAME;
        }
        if (!ID.matcher(clusterName).matches()) {
            throw new IllegalArgumentException(CLUSTER_NAME + " '" + clusterName + "' must be 1-63 characters of"
                    + " a-z, 0-9 and '-', starting with a letter or digit");
        }
        if (heartbeatInterval == null) {
            heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        }
        if (heartbeatInterval.compareTo(MIN_HEARTBEAT_INTERVAL) < 0) {
            throw new IllegalArgumentException(HEARTBEAT_INTERVAL + " must be at least "
                    + MIN_HEARTBEAT_INTERVAL.toMillis() + "ms, was " + heartbeatInterval.toMillis() + "ms");
        }
        if (failureTimeout == null) {
            failureTimeout = DEFAULT_FAILURE_TIMEOUT;
        }
        if (failureTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException(FAILURE_TIMEOUT + " (" + failureTimeout.toMillis() + "ms) must be at"
                    + " least twice " + HEARTBEAT_INTERVAL + " (" + heartbeatInterval.toMillis() + "ms): one late"
                    + " heartbeat must not declare a node down");
        }
        if (requestTimeout == null) {
            requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        }
        if (requestTimeout.toMillis() < 100) {
            throw new IllegalArgumentException(REQUEST_TIMEOUT + " must be at least 100ms, was "
                    + requestTimeout.toMillis() + "ms");
        }
        if (startTimeout == null) {
            startTimeout = DEFAULT_START_TIMEOUT;
        }
        if (startTimeout.compareTo(requestTimeout) < 0) {
            throw new IllegalArgumentException(START_TIMEOUT + " (" + startTimeout.toMillis() + "ms) must be at"
                    + " least " + REQUEST_TIMEOUT + " (" + requestTimeout.toMillis() + "ms)");
        }
        if (tls == null) {
            throw new IllegalArgumentException(ClusterTls.Settings.CA_CERT + " is required in cluster mode: nodes"
                    + " talk mutual TLS with certificates from the cluster CA");
        }
        if (dataDir == null) {
            throw new IllegalArgumentException(DATA_DIR + " is required in cluster mode: the node keeps its"
                    + " membership and the metadata log under " + DATA_DIR + "/cluster/");
        }
    }

    /** {@code <data>/cluster/}: everything this package stores. */
    public Path clusterDir() {
        return dataDir.resolve("cluster");
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds {@link ClusterSettings}; unset values take the defaults in the class table. Each setter checks
     * the form of its value at the call (the message names the setting); combinations are checked by
     * {@link #build()}.
     */
    public static final class Builder {
        private String nodeId;
        private HostPort raftBind;
        private HostPort raftAdvertise;
        private boolean bootstrap;
        private HostPort join;
        private String clusterName;
        private Duration heartbeatInterval;
        private Duration failureTimeout;
        private Duration requestTimeout;
        private Duration startTimeout;
        private ClusterTls.Settings tls;
        private Path dataDir;

        private Builder() {
        }

        public Builder nodeId(String value) {
            this.nodeId = value;
            return this;
        }

        public Builder raftBind(HostPort value) {
            this.raftBind = value;
            return this;
        }

        /** {@code host:port}, checked now. */
        public Builder raftBind(String value) {
            this.raftBind = HostPort.parse(RAFT_BIND, value);
            return this;
        }

        /** Where other nodes dial this node's Raft endpoint, when not at {@code raft_bind}; null = there. */
        public Builder raftAdvertise(HostPort value) {
            this.raftAdvertise = value;
            return this;
        }

        public Builder raftAdvertise(String value) {
            this.raftAdvertise = value == null ? null : HostPort.parse(RAFT_ADVERTISE, value);
            return this;
        }

        public Builder bootstrap(boolean value) {
            this.bootstrap = value;
            return this;
        }

        public Builder join(HostPort value) {
            this.join = value;
            return this;
        }

        /** {@code host:port} of a member's Raft endpoint, checked now; null for none. */
        public Builder join(String value) {
            this.join = value == null ? null : HostPort.parse(JOIN, value);
            return this;
        }

        public Builder clusterName(String value) {
            this.clusterName = value;
            return this;
        }

        public Builder heartbeatInterval(Duration value) {
            this.heartbeatInterval = positive(HEARTBEAT_INTERVAL, value);
            return this;
        }

        public Builder failureTimeout(Duration value) {
            this.failureTimeout = positive(FAILURE_TIMEOUT, value);
            return this;
        }

        public Builder requestTimeout(Duration value) {
            this.requestTimeout = positive(REQUEST_TIMEOUT, value);
            return this;
        }

        public Builder startTimeout(Duration value) {
            this.startTimeout = positive(START_TIMEOUT, value);
            return this;
        }

        public Builder tls(ClusterTls.Settings value) {
            this.tls = value;
            return this;
        }

        public Builder dataDir(Path value) {
            this.dataDir = value;
            return this;
        }

        public ClusterSettings build() {
            return new ClusterSettings(nodeId, raftBind, raftAdvertise, bootstrap, join, clusterName,
                    heartbeatInterval, failureTimeout, requestTimeout, startTimeout, tls, dataDir);
        }

        private static Duration positive(String setting, Duration value) {
            Objects.requireNonNull(value, setting);
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(setting + " must be positive, was " + value);
            }
            return value;
        }
    }
}
