package dev.felix.server.config;

import dev.felix.cluster.relay.RelaySettings;

import dev.felix.core.CoreConfig;
import dev.felix.core.QueuePolicy;
import dev.felix.transport.TransportConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every broker setting: its key, default, documentation and parser. Each default is written here as text, taken
 * from the {@code DEFAULT_*} constant of the config type that owns the value ({@link BrokerConfig},
 * {@link CoreConfig}, {@link TransportConfig}, {@link ClusterConfig}), so a built and a loaded configuration
 * start from the same values; each parser is the one rule a value must obey, whichever way it arrives.
 *
 * <p>Precedence, lowest to highest: built-in default, YAML file ({@code --config FILE} or
 * {@code FELIX_CONFIG}), environment variable ({@code FELIX_<KEY>}), command-line flag.
 */
public final class Settings {
    private Settings() {
    }

    public static final Setting<Path> DATA_DIR = new Setting<>("data_dir", BrokerConfig.DEFAULT_DATA_DIR.toString(),
            "directory for logs, caches and the generated TLS certificate", Path::of);
    public static final Setting<HostPort> QUIC_BIND = new Setting<>("quic_bind", BrokerConfig.DEFAULT_QUIC_BIND.toString(),
            "QUIC listener (UDP) address", HostPort::parse);
    public static final Setting<HostPort> HTTP_BIND = new Setting<>("http_bind", BrokerConfig.DEFAULT_HTTP_BIND.toString(),
            "admin HTTP address: /live, /ready, /metrics", HostPort::parse);
    public static final Setting<Boolean> INSECURE = new Setting<>("insecure", "false",
            "allow a non-loopback bind without authentication", Settings::bool);
    public static final Setting<Map<String, List<String>>> AUTH_TOKENS = new Setting<>("auth_tokens", "",
            "static tokens per tenant, 'tenant=token,tenant=token'; empty = dev mode (any auth accepted on loopback)",
            Settings::tokens);
    public static final Setting<Path> TLS_CERT = new Setting<>("tls_cert", null,
            "PEM certificate chain; unset = generate a self-signed one under DATA_DIR/tls", Path::of);
    public static final Setting<Path> TLS_KEY = new Setting<>("tls_key", null,
            "PEM private key for tls_cert", Path::of);
    public static final Setting<Integer> MAX_FRAME_BYTES = new Setting<>("max_frame_bytes", text(BrokerConfig.DEFAULT_MAX_FRAME_BYTES),
            "largest frame accepted or sent, in bytes", v -> intRange(v, 1024, Integer.MAX_VALUE - 12));
    public static final Setting<Boolean> AUTO_CREATE = new Setting<>("auto_create", "dev",
            "create tenants, namespaces and ephemeral streams on first use; 'dev' = only in dev mode",
            Settings::autoCreate);
    public static final Setting<Integer> SHARD_THREADS = new Setting<>("shard_threads", text(CoreConfig.DEFAULT_SHARD_THREADS),
            "threads running shard writers (all of them with shard_executor pool; with inline, the work not started on a QUIC event loop) and caches (0 = one per core)", v -> intRange(v, 0, 1024));
    public static final Setting<Boolean> SHARD_EXECUTOR_INLINE = new Setting<>("shard_executor", CoreConfig.DEFAULT_INLINE_WRITERS ? "inline" : "pool",
            "where shard writers run: inline (on the QUIC event loop that reads the publish, while the shard has at most " + CoreConfig.INLINE_MAX_SUBSCRIBERS + " subscribers: no thread hop; larger fanouts and work from other threads still go to the pool) or pool (always shard_threads)",
            Settings::shardExecutor);
    public static final Setting<Long> SEGMENT_BYTES = new Setting<>("segment_bytes", text(CoreConfig.Storage.DEFAULT_SEGMENT_BYTES),
            "durable streams: log segment size before rolling", v -> longRange(v, 4096, 1L << 40));
    public static final Setting<Boolean> REPAIR_CORRUPT_TAIL = new Setting<>("repair_corrupt_tail", text(CoreConfig.Storage.DEFAULT_REPAIR_CORRUPT_TAIL),
            "durable streams: at open, cut a corrupted last record instead of refusing the log", Settings::bool);
    public static final Setting<Long> RETENTION_CHECK_MS = new Setting<>("retention_check_ms", millis(CoreConfig.Storage.DEFAULT_RETENTION_CHECK),
            "durable streams: how often retention deletes segments past a stream's bounds", v -> longRange(v, 10, 86_400_000));
    public static final Setting<Integer> STORAGE_FLUSH_THREADS = new Setting<>("storage_flush_threads", text(CoreConfig.Storage.DEFAULT_FLUSH_THREADS),
            "threads running group-committed fsyncs for every log of the node", v -> intRange(v, 1, 256));
    public static final Setting<Integer> RING_EVENTS = new Setting<>("ring_events", text(CoreConfig.DEFAULT_RING_EVENTS),
            "per shard: recent events kept in memory for resume and catch-up", v -> intRange(v, 1, 1 << 30));
    public static final Setting<Long> RING_BYTES = new Setting<>("ring_bytes", text(CoreConfig.DEFAULT_RING_BYTES),
            "per shard: recent payload bytes kept in memory", v -> longRange(v, 1, Long.MAX_VALUE));
    public static final Setting<Integer> WRITER_QUEUE_EVENTS = new Setting<>("writer_queue_events", text(CoreConfig.DEFAULT_WRITER_QUEUE.events()),
            "per shard: publishes waiting for the shard writer, in events", v -> intRange(v, 1, 1 << 30));
    public static final Setting<Long> WRITER_QUEUE_BYTES = new Setting<>("writer_queue_bytes", text(CoreConfig.DEFAULT_WRITER_QUEUE.bytes()),
            "per shard: publishes waiting for the shard writer, in bytes", v -> longRange(v, 1, Long.MAX_VALUE));
    public static final Setting<Integer> SUBSCRIBER_QUEUE_EVENTS = new Setting<>("subscriber_queue_events", text(CoreConfig.DEFAULT_SUBSCRIBER_QUEUE.events()),
            "per subscriber: events waiting to be written to its connection", v -> intRange(v, 1, 1 << 30));
    public static final Setting<Long> SUBSCRIBER_QUEUE_BYTES = new Setting<>("subscriber_queue_bytes", text(CoreConfig.DEFAULT_SUBSCRIBER_QUEUE.bytes()),
            "per subscriber: payload bytes waiting to be written", v -> longRange(v, 1, Long.MAX_VALUE));
    public static final Setting<QueuePolicy> SUBSCRIBER_QUEUE_POLICY = new Setting<>("subscriber_queue_policy",
            CoreConfig.DEFAULT_EPHEMERAL_POLICY.wireName(), "ephemeral streams: default subscriber queue policy (block, drop_new, drop_old)",
            Settings::ephemeralPolicy);
    public static final Setting<IngressPolicy> INGRESS_POLICY = new Setting<>("ingress_policy", BrokerConfig.DEFAULT_INGRESS_POLICY.wireName(),
            "when a shard's writer queue is full: block (stop reading the publisher) or drop_new",
            IngressPolicy::parse);
    public static final Setting<Long> CONN_WINDOW_BYTES = new Setting<>("conn_window_bytes", text(TransportConfig.DEFAULT_CONNECTION_WINDOW),
            "QUIC connection flow-control window", v -> longRange(v, 1024, 1L << 40));
    public static final Setting<Long> STREAM_WINDOW_BYTES = new Setting<>("stream_window_bytes", text(TransportConfig.DEFAULT_STREAM_WINDOW),
            "QUIC per-stream flow-control window", v -> longRange(v, 1024, 1L << 40));
    public static final Setting<Long> MAX_STREAMS = new Setting<>("max_streams", text(TransportConfig.DEFAULT_MAX_STREAMS),
            "QUIC concurrent streams of each kind per connection", v -> longRange(v, 1, 1L << 30));
    public static final Setting<Long> IDLE_TIMEOUT_MS = new Setting<>("idle_timeout_ms", millis(TransportConfig.DEFAULT_IDLE_TIMEOUT),
            "QUIC idle timeout", v -> longRange(v, 1000, 24L * 3600 * 1000));
    public static final Setting<Integer> MAX_UDP_PAYLOAD_BYTES = new Setting<>("max_udp_payload_bytes", text(TransportConfig.AUTOMATIC_UDP_PAYLOAD),
            "largest UDP datagram; 0 = 4096 on loopback, 1350 otherwise", Settings::udpPayload);
    public static final Setting<Integer> QUIC_IO_THREADS = new Setting<>("quic_io_threads", text(BrokerConfig.DEFAULT_QUIC_IO_THREADS),
            "event loops serving client connections, each with its own UDP socket on quic_bind (SO_REUSEPORT; Linux)", v -> intRange(v, 1, 64));
    public static final Setting<Integer> WATCH_LINGER_US = new Setting<>("watch_linger_us", text(BrokerConfig.DEFAULT_WATCH_LINGER_US),
            "for a cache with at least 32 watches: a watch stream that sent changes less than this many microseconds ago waits until then, so quick changes leave together (0 = never wait)", v -> intRange(v, 0, 1_000_000));
    public static final Setting<Boolean> POOLED_PAYLOADS = new Setting<>("pooled_payloads", text(BrokerConfig.DEFAULT_POOLED_PAYLOADS),
            "binary publishes keep their payloads in payload blocks (copied once out of the frame, no heap array per payload; a durable log appends from them) until the memory ring evicts them; false = one heap array per payload", Settings::bool);
    public static final Setting<Long> POOLED_PAYLOADS_SLACK_BYTES = new Setting<>("pooled_payloads_slack_bytes", text(BrokerConfig.DEFAULT_POOLED_PAYLOADS_SLACK_BYTES),
            "payload blocks in use beyond twice the payload bytes held by more than this make the broker copy the payloads memory rings kept over a second into arrays, so the blocks a few long-kept events tie up are reused", v -> longRange(v, 0, Long.MAX_VALUE));
    public static final Setting<Long> SHUTDOWN_TIMEOUT_MS = new Setting<>("shutdown_timeout_ms", millis(BrokerConfig.DEFAULT_SHUTDOWN_TIMEOUT),
            "on SIGTERM: how long in-flight work may take to finish", v -> longRange(v, 0, 3600_000));

    public static final Setting<String> NODE_ID = new Setting<>("node_id", null,
            "cluster: this node's id, unique in the cluster ([a-z0-9][a-z0-9-]{0,62}); kept in DATA_DIR/cluster",
            Settings::nodeId);
    public static final Setting<HostPort> RAFT_BIND = new Setting<>("raft_bind", null,
            "cluster: Raft (metadata) endpoint; setting it makes this node a cluster member; port 0 = pick once",
            HostPort::parse);
    public static final Setting<HostPort> RAFT_ADVERTISE = new Setting<>("raft_advertise", null,
            "cluster: host:port other nodes dial for this node's Raft endpoint when not raft_bind (a port forwarded through NAT or a proxy); kept in DATA_DIR/cluster",
            HostPort::parse);
    public static final Setting<HostPort> PEER_BIND = new Setting<>("peer_bind", null,
            "cluster: replication endpoint (QUIC, mutual TLS); unset = the raft_bind host, any free port",
            HostPort::parse);
    public static final Setting<String> ADVERTISE_HOST = new Setting<>("advertise_host", null,
            "cluster: host other nodes and clients reach this node at; unset = the quic_bind host", v -> v);
    public static final Setting<Boolean> CLUSTER_BOOTSTRAP = new Setting<>("cluster_bootstrap", "false",
            "cluster: form a new cluster with this node as its first member", Settings::bool);
    public static final Setting<HostPort> CLUSTER_JOIN = new Setting<>("cluster_join", null,
            "cluster: Raft endpoint (host:port) of any member, to join the cluster", HostPort::parse);
    public static final Setting<String> CLUSTER_NAME = new Setting<>("cluster_name", ClusterConfig.DEFAULT_NAME,
            "cluster: name of the cluster (every member uses the same)", Settings::clusterName);
    public static final Setting<Path> CLUSTER_CA_CERT = new Setting<>("cluster_ca_cert", null,
            "cluster: CA certificate (PEM) every node's certificate must be issued by", Path::of);
    public static final Setting<Path> CLUSTER_CA_KEY = new Setting<>("cluster_ca_key", null,
            "cluster: CA private key (PEM); with it the node issues its own certificate under DATA_DIR/cluster/tls",
            Path::of);
    public static final Setting<Path> CLUSTER_NODE_CERT = new Setting<>("cluster_node_cert", null,
            "cluster: this node's certificate (PEM) issued by cluster_ca_cert (instead of cluster_ca_key)", Path::of);
    public static final Setting<Path> CLUSTER_NODE_KEY = new Setting<>("cluster_node_key", null,
            "cluster: private key (PEM) of cluster_node_cert", Path::of);
    public static final Setting<Long> CLUSTER_HEARTBEAT_MS = new Setting<>("cluster_heartbeat_ms", millis(ClusterConfig.DEFAULT_HEARTBEAT),
            "cluster: how often a node tells the metadata leader it is alive", v -> longRange(v, 50, 60_000));
    public static final Setting<Long> CLUSTER_FAILURE_TIMEOUT_MS = new Setting<>("cluster_failure_timeout_ms", millis(ClusterConfig.DEFAULT_FAILURE_TIMEOUT),
            "cluster: a node silent this long is declared down and its leaderships fail over",
            v -> longRange(v, 200, 600_000));
    public static final Setting<Long> CLUSTER_REQUEST_TIMEOUT_MS = new Setting<>("cluster_request_timeout_ms",
            millis(ClusterConfig.DEFAULT_REQUEST_TIMEOUT),
            "cluster: a metadata write (a create or delete, a failover decision) not committed within this fails with"
                    + " unavailable", v -> longRange(v, 100, 600_000));
    public static final Setting<Long> CLUSTER_START_TIMEOUT_MS = new Setting<>("cluster_start_timeout_ms",
            millis(ClusterConfig.DEFAULT_START_TIMEOUT),
            "cluster: how long a start may wait to register with the cluster (a metadata quorum must answer);"
                    + " at least cluster_request_timeout_ms", v -> longRange(v, 100, 86_400_000));

    public static final Setting<Boolean> CLUSTER_RELAY_SUBSCRIBE = new Setting<>("cluster_relay_subscribe", "false",
            "cluster (experimental): serve a subscribe (start latest) for a shard another node leads through this"
                    + " node's relay, instead of answering not_leader", Settings::bool);
    public static final Setting<Integer> CLUSTER_RELAY_WORKERS = new Setting<>(RelaySettings.WORKERS,
            text(RelaySettings.DEFAULT_WORKERS), "cluster relay: delivery workers (each relayed shard is delivered by"
                    + " one, in order)", v -> intRange(v, 1, RelaySettings.MAX_WORKERS));
    public static final Setting<Integer> CLUSTER_RELAY_QUEUE_BATCHES = new Setting<>(RelaySettings.QUEUE_BATCHES,
            text(RelaySettings.DEFAULT_QUEUE_BATCHES), "cluster relay: batches one worker queues, and one stalled"
                    + " subscriber's backlog; one more is lost (queue_full)", v -> intRange(v, 1, RelaySettings.MAX_QUEUE));
    public static final Setting<Long> CLUSTER_RELAY_DEADLINE_MS = new Setting<>(RelaySettings.DEADLINE,
            millis(RelaySettings.DEFAULT_DEADLINE), "cluster relay: a batch not delivered this long after the node"
                    + " received it is lost (stale), never delivered late", v -> longRange(v, 1, 600_000));
    public static final Setting<Integer> CLUSTER_RELAY_CLOSES_PER_WINDOW = new Setting<>(
            RelaySettings.CLOSES_PER_WINDOW, text(RelaySettings.DEFAULT_CLOSES_PER_WINDOW),
            "cluster relay: resync closes the node makes at most per close window", v -> intRange(v, 1, 1_000_000));
    public static final Setting<Long> CLUSTER_RELAY_CLOSE_WINDOW_MS = new Setting<>(RelaySettings.CLOSE_WINDOW,
            millis(RelaySettings.DEFAULT_CLOSE_WINDOW), "cluster relay: the pacing window of resync closes",
            v -> longRange(v, 1, 60_000));
    public static final Setting<Integer> CLUSTER_RELAY_DISPATCHER_BACKLOG = new Setting<>(
            RelaySettings.DISPATCHER_BACKLOG, text(RelaySettings.DEFAULT_DISPATCHER_BACKLOG),
            "cluster relay: batches received but not yet routed; a full backlog fences every relayed subscription",
            v -> intRange(v, 1, RelaySettings.MAX_QUEUE));

    /** All settings, in documentation order. */
    public static final List<Setting<?>> ALL = List.of(DATA_DIR, QUIC_BIND, HTTP_BIND, INSECURE, AUTH_TOKENS,
            TLS_CERT, TLS_KEY, MAX_FRAME_BYTES, AUTO_CREATE, SHARD_THREADS, SHARD_EXECUTOR_INLINE, SEGMENT_BYTES,
            REPAIR_CORRUPT_TAIL, RETENTION_CHECK_MS, STORAGE_FLUSH_THREADS, RING_EVENTS, RING_BYTES,
            WRITER_QUEUE_EVENTS, WRITER_QUEUE_BYTES, SUBSCRIBER_QUEUE_EVENTS, SUBSCRIBER_QUEUE_BYTES,
            SUBSCRIBER_QUEUE_POLICY, INGRESS_POLICY, CONN_WINDOW_BYTES, STREAM_WINDOW_BYTES, MAX_STREAMS,
            IDLE_TIMEOUT_MS, MAX_UDP_PAYLOAD_BYTES, QUIC_IO_THREADS, WATCH_LINGER_US, POOLED_PAYLOADS, POOLED_PAYLOADS_SLACK_BYTES, SHUTDOWN_TIMEOUT_MS, NODE_ID, RAFT_BIND, RAFT_ADVERTISE, PEER_BIND, ADVERTISE_HOST,
            CLUSTER_BOOTSTRAP, CLUSTER_JOIN, CLUSTER_NAME, CLUSTER_CA_CERT, CLUSTER_CA_KEY, CLUSTER_NODE_CERT, CLUSTER_NODE_KEY,
            CLUSTER_HEARTBEAT_MS, CLUSTER_FAILURE_TIMEOUT_MS, CLUSTER_REQUEST_TIMEOUT_MS, CLUSTER_START_TIMEOUT_MS,
            CLUSTER_RELAY_SUBSCRIBE, CLUSTER_RELAY_WORKERS,
            CLUSTER_RELAY_QUEUE_BATCHES, CLUSTER_RELAY_DEADLINE_MS, CLUSTER_RELAY_CLOSES_PER_WINDOW,
            CLUSTER_RELAY_CLOSE_WINDOW_MS, CLUSTER_RELAY_DISPATCHER_BACKLOG);

    /** The setting with this key, or null. */
    public static Setting<?> byKey(String key) {
        for (Setting<?> s : ALL) {
            if (s.key().equals(key)) {
                return s;
            }
        }
        return null;
    }

    /** What the broker does when a shard's writer queue is full (checkpoint {@code broker_ingress}). */
    public enum IngressPolicy {
        /** Stop reading the publishing stream until there is room: QUIC flow control slows the publisher. */
        BLOCK,
        /** Refuse the publish: acknowledged ones get {@code overloaded}, unacknowledged ones are counted. */
        DROP_NEW;

        /** The setting's spelling: {@code block} or {@code drop_new}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static IngressPolicy parse(String v) {
            return switch (v) {
                case "block" -> BLOCK;
                case "drop_new" -> DROP_NEW;
                default -> throw new IllegalArgumentException("expected block or drop_new, got '" + v + "'");
            };
        }
    }

    private static String text(long value) {
        return Long.toString(value);
    }

    private static String text(boolean value) {
        return Boolean.toString(value);
    }

    private static String millis(java.time.Duration value) {
        return Long.toString(value.toMillis());
    }

    static boolean bool(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException("expected true or false, got '" + v + "'");
        };
    }

    static boolean shardExecutor(String v) {
        return switch (v) {
            case "inline" -> true;
            case "pool" -> false;
            default -> throw new IllegalArgumentException("expected inline or pool, got '" + v + "'");
        };
    }

    /** "dev" resolves later (null), otherwise a boolean. */
    static Boolean autoCreate(String v) {
        return "dev".equals(v) ? null : bool(v);
    }

    static QueuePolicy ephemeralPolicy(String v) {
        QueuePolicy p = QueuePolicy.parse(v);
        if (p == QueuePolicy.CATCH_UP) {
            throw new IllegalArgumentException("catch_up needs a log and applies to durable streams only");
        }
        return p;
    }

    static String nodeId(String v) {
        if (!v.matches("[a-z0-9][a-z0-9-]{0,62}")) {
            throw new IllegalArgumentException("expected lower-case letters, digits and dashes (at most 63, starting"
                    + " with a letter or digit), got '" + v + "'");
        }
        return v;
    }

    static String clusterName(String v) {
        if (!v.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
            throw new IllegalArgumentException("expected letters, digits, '.', '_' and '-' (at most 63), got '" + v + "'");
        }
        return v;
    }

    static int udpPayload(String v) {
        int n = intRange(v, 0, 65527);
        if (n != 0 && n < 1200) {
            throw new IllegalArgumentException("must be 0 (automatic) or within [1200, 65527], was " + n);
        }
        return n;
    }

    static Map<String, List<String>> tokens(String v) {
        Map<String, List<String>> result = new LinkedHashMap<>();
        if (v.isBlank()) {
            return result;
        }
        for (String pair : v.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("expected tenant=token pairs separated by commas");
            }
            String tenant = pair.substring(0, eq).trim();
            dev.felix.core.StreamName.checkPart("tenant", tenant);
            result.computeIfAbsent(tenant, t -> new java.util.ArrayList<>()).add(pair.substring(eq + 1).trim());
        }
        return result;
    }

    static int intRange(String v, int min, int max) {
        long n = longRange(v, min, max);
        return (int) n;
    }

    static long longRange(String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number, got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("must be within [" + min + ", " + max + "], was " + n);
        }
        return n;
    }
}
