package dev.felix.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Resolves a {@link BrokerConfig}. Precedence, lowest to highest: built-in default, YAML file,
 * {@code FELIX_*} environment variable, command-line flag. Any invalid value fails with a message that
 * names the setting and where the value came from; unknown YAML keys fail too (they are usually typos).
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * @param yamlFile a YAML file, or null for none
     * @param env      environment variables (only {@code FELIX_*} names are read)
     * @param flags    values from command-line flags, keyed by setting key (e.g. {@code quic_bind})
     */
    public static BrokerConfig load(Path yamlFile, Map<String, String> env, Map<String, String> flags)
            throws ConfigException {
        Map<String, String> values = new HashMap<>();
        Map<String, String> origins = new HashMap<>();
        for (Setting<?> s : Settings.ALL) {
            if (s.defaultText() != null) {
                values.put(s.key(), s.defaultText());
                origins.put(s.key(), "default");
            }
        }
        if (yamlFile != null) {
            readYaml(yamlFile, values, origins);
        }
        for (Setting<?> s : Settings.ALL) {
            String v = env.get(s.env());
            if (v != null) {
                values.put(s.key(), v);
                origins.put(s.key(), "environment variable " + s.env());
            }
        }
        for (Map.Entry<String, String> flag : flags.entrySet()) {
            Setting<?> s = Settings.byKey(flag.getKey());
            if (s == null) {
                throw new ConfigException("unknown setting '" + flag.getKey() + "'");
            }
            values.put(s.key(), flag.getValue());
            origins.put(s.key(), "flag " + s.flag());
        }
        return build(new Resolved(values, origins));
    }

    private static BrokerConfig build(Resolved r) throws ConfigException {
        Map<String, List<String>> tokens = r.get(Settings.AUTH_TOKENS);
        boolean dev = tokens.isEmpty();
        Boolean autoCreate = r.getOrNull(Settings.AUTO_CREATE);
        HostPort quic = r.get(Settings.QUIC_BIND);
        HostPort http = r.get(Settings.HTTP_BIND);
        boolean insecure = r.get(Settings.INSECURE);
        if (!quic.isLoopback() && dev && !insecure) {
            throw new ConfigException("quic_bind " + quic + " (" + r.origin(Settings.QUIC_BIND) + ") is not a"
                    + " loopback address and no authentication is configured: set auth_tokens, or pass"
                    + " --insecure to accept any client");
        }
        if (!http.isLoopback() && !insecure) {
            throw new ConfigException("http_bind " + http + " (" + r.origin(Settings.HTTP_BIND) + ") is not a"
                    + " loopback address; the admin endpoints have no authentication: pass --insecure to allow it");
        }
        ClusterConfig cluster = cluster(r, quic);
        if (cluster != null) {
            if (Boolean.TRUE.equals(autoCreate)) {
                throw new ConfigException("auto_create (" + r.origin(Settings.AUTO_CREATE) + ") is not supported in a"
                        + " cluster: create streams and caches explicitly (felix stream create, felix cache create)");
            }
            autoCreate = false; // a stream made on first use would exist on one node only
        }
        try {
            return new BrokerConfig.Builder()
                    .dataDir(r.get(Settings.DATA_DIR))
                    .quicBind(quic)
                    .httpBind(http)
                    .insecure(insecure)
                    .authTokens(tokens)
                    .tls(r.getOrNull(Settings.TLS_CERT), r.getOrNull(Settings.TLS_KEY))
                    .maxFrameBytes(r.get(Settings.MAX_FRAME_BYTES))
                    .autoCreate(autoCreate != null ? autoCreate : dev)
                    .shardThreads(r.get(Settings.SHARD_THREADS))
                    .inlineWriters(r.<Boolean>get(Settings.SHARD_EXECUTOR_INLINE))
                    .segmentBytes(r.get(Settings.SEGMENT_BYTES))
                    .repairCorruptTail(r.<Boolean>get(Settings.REPAIR_CORRUPT_TAIL))
                    .retentionCheck(Duration.ofMillis(r.<Long>get(Settings.RETENTION_CHECK_MS)))
                    .storageFlushThreads(r.get(Settings.STORAGE_FLUSH_THREADS))
                    .ringEvents(r.get(Settings.RING_EVENTS))
                    .ringBytes(r.get(Settings.RING_BYTES))
                    .writerQueue(new QueueLimits(r.get(Settings.WRITER_QUEUE_EVENTS), r.get(Settings.WRITER_QUEUE_BYTES)))
                    .subscriberQueue(new QueueLimits(r.get(Settings.SUBSCRIBER_QUEUE_EVENTS),
                            r.get(Settings.SUBSCRIBER_QUEUE_BYTES)))
                    .subscriberQueuePolicy(r.<QueuePolicy>get(Settings.SUBSCRIBER_QUEUE_POLICY))
                    .ingressPolicy(r.get(Settings.INGRESS_POLICY))
                    .connWindowBytes(r.get(Settings.CONN_WINDOW_BYTES))
                    .streamWindowBytes(r.get(Settings.STREAM_WINDOW_BYTES))
                    .maxStreams(r.get(Settings.MAX_STREAMS))
                    .idleTimeout(Duration.ofMillis(r.get(Settings.IDLE_TIMEOUT_MS)))
                    .maxUdpPayloadBytes(r.get(Settings.MAX_UDP_PAYLOAD_BYTES))
                    .quicIoThreads(r.get(Settings.QUIC_IO_THREADS))
                    .watchLingerMicros(r.get(Settings.WATCH_LINGER_US))
                    .pooledPayloads(r.get(Settings.POOLED_PAYLOADS))
                    .pooledPayloadsSlackBytes(r.get(Settings.POOLED_PAYLOADS_SLACK_BYTES))
                    .shutdownTimeout(Duration.ofMillis(r.get(Settings.SHUTDOWN_TIMEOUT_MS)))
                    .cluster(cluster)
                    .build();
        } catch (IllegalArgumentException e) {
            // rules between settings (each value alone was checked when it was parsed, naming its origin)
            throw new ConfigException(e.getMessage());
        }
    }

    /** The cluster membership settings, checked together by {@link ClusterConfig}; null for a single node. */
    private static ClusterConfig cluster(Resolved r, HostPort quic) throws ConfigException {
        HostPort raft = r.getOrNull(Settings.RAFT_BIND);
        boolean bootstrap = r.get(Settings.CLUSTER_BOOTSTRAP);
        HostPort join = r.getOrNull(Settings.CLUSTER_JOIN);
        if (raft == null) {
            if (r.getOrNull(Settings.RAFT_ADVERTISE) != null) {
                throw new ConfigException("raft_advertise needs raft_bind: the address this node's Raft endpoint"
                        + " listens on, which raft_advertise forwards to");
            }
            if (bootstrap || join != null) {
                throw new ConfigException((bootstrap ? "cluster_bootstrap" : "cluster_join") + " needs raft_bind: the"
                        + " address this node's Raft endpoint listens on (e.g. --raft-bind 127.0.0.1:7000)");
            }
            return null;
        }
        String advertise = r.getOrNull(Settings.ADVERTISE_HOST);
        if (advertise == null) {
            if (quic.host().equals("0.0.0.0") || quic.host().equals("::")) {
                throw new ConfigException("advertise_host is required when quic_bind listens on every address ("
                        + quic + "): the host other nodes and clients reach this node at");
            }
            advertise = quic.host();
        }
        HostPort peer = r.getOrNull(Settings.PEER_BIND);
        try {
            // Raw values go straight to the record: it names what is missing or inconsistent, with the way out.
            return new ClusterConfig(r.getOrNull(Settings.NODE_ID), raft, r.getOrNull(Settings.RAFT_ADVERTISE),
                    peer != null ? peer : new HostPort(raft.host(), 0),
                    advertise, bootstrap, join, r.get(Settings.CLUSTER_NAME), r.getOrNull(Settings.CLUSTER_CA_CERT),
                    r.getOrNull(Settings.CLUSTER_CA_KEY), r.getOrNull(Settings.CLUSTER_NODE_CERT),
                    r.getOrNull(Settings.CLUSTER_NODE_KEY), Duration.ofMillis(r.<Long>get(Settings.CLUSTER_HEARTBEAT_MS)),
                    Duration.ofMillis(r.<Long>get(Settings.CLUSTER_FAILURE_TIMEOUT_MS)),
                    Duration.ofMillis(r.<Long>get(Settings.CLUSTER_REQUEST_TIMEOUT_MS)),
                    Duration.ofMillis(r.<Long>get(Settings.CLUSTER_START_TIMEOUT_MS)),
                    r.<Boolean>get(Settings.CLUSTER_RELAY_SUBSCRIBE), new dev.felix.cluster.relay.RelaySettings(
                            r.<Integer>get(Settings.CLUSTER_RELAY_WORKERS),
                            r.<Integer>get(Settings.CLUSTER_RELAY_QUEUE_BATCHES),
                            Duration.ofMillis(r.<Long>get(Settings.CLUSTER_RELAY_DEADLINE_MS)),
                            r.<Integer>get(Settings.CLUSTER_RELAY_CLOSES_PER_WINDOW),
                            Duration.ofMillis(r.<Long>get(Settings.CLUSTER_RELAY_CLOSE_WINDOW_MS)),
                            r.<Integer>get(Settings.CLUSTER_RELAY_DISPATCHER_BACKLOG)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static void readYaml(Path file, Map<String, String> values, Map<String, String> origins)
            throws ConfigException {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return; // an empty file configures nothing
        }
        if (!root.isObject()) {
            throw new ConfigException("config file " + file + " must be a YAML mapping of setting: value");
        }
        Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            Setting<?> s = Settings.byKey(field.getKey());
            if (s == null) {
                StringJoiner known = new StringJoiner(", ");
                Settings.ALL.forEach(k -> known.add(k.key()));
                throw new ConfigException("unknown setting '" + field.getKey() + "' in " + file + "; known: " + known);
            }
            values.put(s.key(), yamlText(s, field.getValue(), file));
            origins.put(s.key(), "config file " + file);
        }
    }

    private static String yamlText(Setting<?> s, JsonNode node, Path file) throws ConfigException {
        if (s == Settings.AUTH_TOKENS && node.isObject()) {
            // auth_tokens: {tenant: token} or {tenant: [token, ...]}
            StringJoiner pairs = new StringJoiner(",");
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isArray()) {
                    e.getValue().forEach(t -> pairs.add(e.getKey() + "=" + t.asText()));
                } else {
                    pairs.add(e.getKey() + "=" + e.getValue().asText());
                }
            }
            return pairs.toString();
        }
        if (!node.isValueNode() || node.isNull()) {
            throw new ConfigException("setting " + s.key() + " in " + file + " must be a single value");
        }
        return node.asText();
    }

    /** Resolved text values with their origins, parsed on demand with errors naming both. */
    private record Resolved(Map<String, String> values, Map<String, String> origins) {
        @SuppressWarnings("unchecked")
        <T> T get(Setting<?> s) throws ConfigException {
            T v = getOrNull(s);
            if (v == null) {
                throw new ConfigException("setting " + s.key() + " has no value");
            }
            return v;
        }

        @SuppressWarnings("unchecked")
        <T> T getOrNull(Setting<?> s) throws ConfigException {
            String text = values.get(s.key());
            if (text == null) {
                return null;
            }
            try {
                return (T) s.parser().apply(text.trim());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("invalid " + s.key() + " (" + origin(s) + "): " + e.getMessage());
            }
        }

        String origin(Setting<?> s) {
            return origins.getOrDefault(s.key(), "default");
        }
    }
}
