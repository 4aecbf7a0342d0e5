package dev.felix.cluster.metadata;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JSON forms of what goes through Raft and to disk: commands (log entries), outcomes (replies), heartbeats
 * (read-only queries) and the whole state (snapshots). Field names are explicit and stable ({@code snake_case}),
 * never derived from Java names, so a renamed field cannot change what an older log means; every object
 * carries its {@code type} (commands) or {@code format} (snapshots).
 *
 * <p>Decoding is strict: a missing or mistyped field, an unknown type or an invalid value throws
 * {@link IllegalArgumentException} naming it. Stateless and thread-safe.
 */
final class Json {

    /** Version of the snapshot format this code writes and reads. */
    static final int SNAPSHOT_FORMAT = 1;
    /** Largest JSON document decoded (a heartbeat of a node with very many replicas stays far below). */
    static final int MAX_DOCUMENT_BYTES = 64 << 20;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    // ------------------------------------------------------------------ documents

    static byte[] encode(Command c) {
        return bytes(command(c));
    }

    static Command decodeCommand(byte[] data) {
        return command(parse(data));
    }

    static byte[] encode(Outcome o) {
        ObjectNode n = MAPPER.createObjectNode();
        if (o instanceof Outcome.Refused r) {
            n.put("error", r.error().code().code());
            n.put("message", r.error().message());
        } else {
            Object v = ((Outcome.Done) o).value();
            if (v instanceof NodeInfo i) {
                n.put("value_type", "node");
                n.set("value", node(i));
            } else if (v instanceof StreamRecord s) {
                n.put("value_type", "stream");
                n.set("value", stream(s));
            } else if (v instanceof CacheRecord c) {
                n.put("value_type", "cache");
                n.set("value", cache(c));
            } else if (v instanceof ShardPlacement p) {
                n.put("value_type", "placement");
                n.set("value", placement(p));
            } else if (v != null) {
                throw new IllegalArgumentException("no JSON form for a " + v.getClass().getName());
            }
        }
        return bytes(n);
    }

    static Outcome decodeOutcome(byte[] data) {
        JsonNode n = parse(data);
        if (n.has("error")) {
            return new Outcome.Refused(FelixError.of(ErrorCode.fromCode(text(n, "error")), text(n, "message")));
        }
        if (!n.has("value_type")) {
            return Outcome.done(null);
        }
        JsonNode v = field(n, "value");
        String type = text(n, "value_type");
        switch (type) {
            case "node":
                return Outcome.done(nodeInfo(v));
            case "stream":
                return Outcome.done(streamRecord(v));
            case "cache":
                return Outcome.done(cacheRecord(v));
            case "placement":
                return Outcome.done(placement(v));
            default:
                throw new IllegalArgumentException("unknown value_type '" + type + "'");
        }
    }

    static byte[] encode(Heartbeat h) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("type", "heartbeat");
        n.put("node_id", h.nodeId());
        n.put("incarnation", h.incarnation());
        n.put("sequence", h.sequence());
        ArrayNode reports = n.putArray("reports");
        for (ReplicaReport r : h.reports()) {
            ObjectNode o = key(r.key());
            o.put("last_epoch", r.lastEpoch());
            o.put("log_end", r.logEnd());
            o.put("durable_end", r.durableEnd());
            o.put("fenced_epoch", r.fencedEpoch());
            reports.add(o);
        }
        return bytes(n);
    }

    /** A read-only question to the Raft leader's state machine ({@code type} names which). */
    sealed interface Query permits Heartbeat {
    }

    static Query decodeQuery(byte[] data) {
        JsonNode n = parse(data);
        String type = text(n, "type");
        switch (type) {
            case "heartbeat":
                return heartbeat(n);
            default:
                throw new IllegalArgumentException("unknown query type '" + type + "'");
        }
    }

    static Heartbeat decodeHeartbeat(byte[] data) {
        return (Heartbeat) decodeQuery(data); // the only query there is
    }

    private static Heartbeat heartbeat(JsonNode n) {
        List<ReplicaReport> reports = new ArrayList<>();
        for (JsonNode r : array(n, "reports")) {
            reports.add(new ReplicaReport(shardKey(r), lng(r, "last_epoch"), lng(r, "log_end"),
                    lng(r, "durable_end"), lng(r, "fenced_epoch")));
        }
        // "sequence" is absent from a node of an earlier version
        long sequence = n.has("sequence") ? lng(n, "sequence") : Heartbeat.UNNUMBERED;
        return new Heartbeat(text(n, "node_id"), lng(n, "incarnation"), sequence, reports);
    }

    /** The leader's answer to a heartbeat: who answered and how far it has applied. */
    record HeartbeatReply(String leader, long applied) {
    }

    static byte[] encode(HeartbeatReply r) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("leader", r.leader());
        n.put("applied", r.applied());
        return bytes(n);
    }

    static HeartbeatReply decodeHeartbeatReply(byte[] data) {
        JsonNode n = parse(data);
        return new HeartbeatReply(text(n, "leader"), lng(n, "applied"));
    }

    static byte[] encodeState(ClusterState s, long term, long index) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("format", SNAPSHOT_FORMAT);
        n.put("term", term);
        n.put("index", index);
        if (s.clusterName() != null) {
            n.put("cluster_name", s.clusterName());
        }
        n.put("seed", s.seed());
        n.put("version", s.version());
        ArrayNode nodes = n.putArray("nodes");
        for (ClusterState.Member m : s.nodes().values()) {
            ObjectNode o = node(m.info());
            o.put("instance_id", m.instanceId());
            nodes.add(o);
        }
        ArrayNode tenants = n.putArray("tenants");
        s.tenants().forEach(tenants::add);
        ArrayNode namespaces = n.putArray("namespaces");
        s.namespaces().forEach(namespaces::add);
        ArrayNode streams = n.putArray("streams");
        s.streams().values().forEach(r -> streams.add(stream(r)));
        ArrayNode caches = n.putArray("caches");
        s.caches().values().forEach(r -> caches.add(cache(r)));
        ArrayNode placements = n.putArray("placements");
        s.placements().values().forEach(p -> placements.add(placement(p)));
        return bytes(n);
    }

    /** A snapshot document: the state and the log position it was taken at. */
    record StateDocument(ClusterState state, long term, long index) {
    }

    static StateDocument decodeState(byte[] data) {
        JsonNode n = parse(data);
        int format = (int) lng(n, "format");
        if (format != SNAPSHOT_FORMAT) {
            throw new IllegalArgumentException("snapshot format " + format + " is not " + SNAPSHOT_FORMAT
                    + " (written by another version)");
        }
        TreeMap<String, ClusterState.Member> nodes = new TreeMap<>();
        for (JsonNode o : array(n, "nodes")) {
            NodeInfo info = nodeInfo(o);
            nodes.put(info.nodeId(), new ClusterState.Member(info, text(o, "instance_id")));
        }
        TreeSet<String> tenants = new TreeSet<>();
        array(n, "tenants").forEach(t -> tenants.add(asText(t, "tenants")));
        TreeSet<String> namespaces = new TreeSet<>();
        array(n, "namespaces").forEach(t -> namespaces.add(asText(t, "namespaces")));
        TreeMap<String, StreamRecord> streams = new TreeMap<>();
        for (JsonNode o : array(n, "streams")) {
            StreamRecord r = streamRecord(o);
            streams.put(ClusterState.key(r.name()), r);
        }
        TreeMap<String, CacheRecord> caches = new TreeMap<>();
        for (JsonNode o : array(n, "caches")) {
            CacheRecord r = cacheRecord(o);
            caches.put(ClusterState.key(r.name()), r);
        }
        TreeMap<ShardKey, ShardPlacement> placements = new TreeMap<>(ClusterState.KEY_ORDER);
        for (JsonNode o : array(n, "placements")) {
            ShardPlacement p = placement(o);
            placements.put(p.key(), p);
        }
        String clusterName = n.has("cluster_name") ? text(n, "cluster_name") : null;
        ClusterState state = new ClusterState(clusterName, lng(n, "seed"), lng(n, "version"), nodes, tenants,
                namespaces, streams, caches, placements);
        return new StateDocument(state, lng(n, "term"), lng(n, "index"));
    }

    // ------------------------------------------------------------------ commands

    private static ObjectNode command(Command c) {
        if (c instanceof Command.Decided d) {
            ObjectNode n = command(d.decision());
            n.put("decided_in_term", d.term());
            return n;
        }
        ObjectNode n = MAPPER.createObjectNode();
        if (c instanceof Command.InitCluster x) {
            n.put("type", "init_cluster");
            n.put("cluster_name", x.clusterName());
            n.put("seed", x.seed());
        } else if (c instanceof Command.RegisterNode x) {
            n.put("type", "register_node");
            n.put("node_id", x.nodeId());
            n.put("instance_id", x.instanceId());
            n.put("raft_address", x.raftAddress());
            n.put("client_address", x.clientAddress());
            n.put("peer_address", x.peerAddress());
            n.put("incarnation", x.incarnation());
        } else if (c instanceof Command.SetNodeStatus x) {
            n.put("type", "set_node_status");
            n.put("node_id", x.nodeId());
            n.put("status", lower(x.status()));
            n.put("expected_incarnation", x.expectedIncarnation());
        } else if (c instanceof Command.CreateTenant x) {
            n.put("type", "create_tenant");
            n.put("tenant", x.tenant());
        } else if (c instanceof Command.CreateStream x) {
            n.put("type", "create_stream");
            n.put("name", x.name().toString());
            n.set("config", streamConfig(x.config()));
        } else if (c instanceof Command.DeleteStream x) {
            n.put("type", "delete_stream");
            n.put("name", x.name().toString());
        } else if (c instanceof Command.CreateCache x) {
            n.put("type", "create_cache");
            n.put("name", x.name().toString());
            n.set("config", cacheConfig(x.config()));
        } else if (c instanceof Command.DeleteCache x) {
            n.put("type", "delete_cache");
            n.put("name", x.name().toString());
        } else if (c instanceof Command.SetLeader x) {
            n.put("type", "set_leader");
            n.set("key", key(x.key()));
            n.put("new_leader", x.newLeader());
            n.put("expected_epoch", x.expectedEpoch());
            if (x.replicas() != null) {
                ArrayNode a = n.putArray("replicas");
                x.replicas().forEach(a::add);
            }
        } else if (c instanceof Command.SetUnavailable x) {
            n.put("type", "set_unavailable");
            n.set("key", key(x.key()));
            n.put("expected_epoch", x.expectedEpoch());
            n.put("reason", x.reason());
        } else if (c instanceof Command.HandOff x) {
            n.put("type", "hand_off");
            n.set("key", key(x.key()));
            n.put("expected_epoch", x.expectedEpoch());
            n.put("from_node", x.fromNode());
            n.put("to_node", x.toNode());
        } else if (c instanceof Command.ResumeLeadership x) {
            n.put("type", "resume_leadership");
            n.set("key", key(x.key()));
            n.put("expected_epoch", x.expectedEpoch());
            n.put("node", x.node());
        } else if (c instanceof Command.Barrier) {
            n.put("type", "barrier");
        } else {
            throw new IllegalArgumentException("no JSON form for command " + c.getClass().getName());
        }
        return n;
    }

    private static Command command(JsonNode n) {
        Command c = undecided(n);
        return n.has("decided_in_term") ? new Command.Decided(lng(n, "decided_in_term"), c) : c;
    }

    private static Command undecided(JsonNode n) {
        String type = text(n, "type");
        switch (type) {
            case "init_cluster":
                return new Command.InitCluster(text(n, "cluster_name"), lng(n, "seed"));
            case "register_node":
                return new Command.RegisterNode(text(n, "node_id"), text(n, "instance_id"), text(n, "raft_address"),
                        text(n, "client_address"), text(n, "peer_address"), lng(n, "incarnation"));
            case "set_node_status":
                return new Command.SetNodeStatus(text(n, "node_id"), upper(NodeStatus.class, text(n, "status")),
                        lng(n, "expected_incarnation"));
            case "create_tenant":
                return new Command.CreateTenant(text(n, "tenant"));
            case "create_stream":
                return new Command.CreateStream(StreamName.parse(text(n, "name")), streamConfig(field(n, "config")));
            case "delete_stream":
                return new Command.DeleteStream(StreamName.parse(text(n, "name")));
            case "create_cache":
                return new Command.CreateCache(CacheName.parse(text(n, "name")), cacheConfig(field(n, "config")));
            case "delete_cache":
                return new Command.DeleteCache(CacheName.parse(text(n, "name")));
            case "set_leader":
                return new Command.SetLeader(shardKey(field(n, "key")), text(n, "new_leader"),
                        lng(n, "expected_epoch"), n.has("replicas") ? strings(n, "replicas") : null);
            case "set_unavailable":
                return new Command.SetUnavailable(shardKey(field(n, "key")), lng(n, "expected_epoch"),
                        text(n, "reason"));
            case "hand_off":
                return new Command.HandOff(shardKey(field(n, "key")), lng(n, "expected_epoch"),
                        text(n, "from_node"), text(n, "to_node"));
            case "resume_leadership":
                return new Command.ResumeLeadership(shardKey(field(n, "key")), lng(n, "expected_epoch"),
                        text(n, "node"));
            case "barrier":
                return new Command.Barrier();
            default:
                throw new IllegalArgumentException("unknown command type '" + type + "'");
        }
    }

    // ------------------------------------------------------------------ values

    private static ObjectNode node(NodeInfo i) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("node_id", i.nodeId());
        o.put("client_address", i.clientAddress());
        o.put("peer_address", i.peerAddress());
        o.put("raft_address", i.raftAddress());
        o.put("status", lower(i.status()));
        o.put("incarnation", i.incarnation());
        return o;
    }

    private static NodeInfo nodeInfo(JsonNode o) {
        return new NodeInfo(text(o, "node_id"), optText(o, "client_address"), optText(o, "peer_address"),
                optText(o, "raft_address"), upper(NodeStatus.class, text(o, "status")), lng(o, "incarnation"));
    }

    private static ObjectNode key(ShardKey k) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("kind", lower(k.kind()));
        o.put("uid", k.uid());
        o.put("shard", k.shard());
        return o;
    }

    private static ShardKey shardKey(JsonNode o) {
        return new ShardKey(upper(ShardKey.Kind.class, text(o, "kind")), lng(o, "uid"), (int) lng(o, "shard"));
    }

    private static ObjectNode placement(ShardPlacement p) {
        ObjectNode o = MAPPER.createObjectNode();
        o.set("key", key(p.key()));
        o.put("name", p.name());
        o.put("durable", p.durable());
        o.put("consistency", p.consistency().wireName());
        ArrayNode r = o.putArray("replicas");
        p.replicas().forEach(r::add);
        o.put("leader", p.leader());
        o.put("epoch", p.epoch());
        o.put("status", lower(p.status()));
        if (p.reason() != null) {
            o.put("reason", p.reason());
        }
        return o;
    }

    private static ShardPlacement placement(JsonNode o) {
        return new ShardPlacement(shardKey(field(o, "key")), text(o, "name"), bool(o, "durable"),
                Consistency.parse(text(o, "consistency")), strings(o, "replicas"), text(o, "leader"),
                lng(o, "epoch"), upper(ShardStatus.class, text(o, "status")), optText(o, "reason"));
    }

    private static ObjectNode stream(StreamRecord r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("name", r.name().toString());
        o.put("uid", r.uid());
        o.set("config", streamConfig(r.config()));
        return o;
    }

    private static StreamRecord streamRecord(JsonNode o) {
        return new StreamRecord(StreamName.parse(text(o, "name")), streamConfig(field(o, "config")), lng(o, "uid"));
    }

    private static ObjectNode cache(CacheRecord r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("name", r.name().toString());
        o.put("uid", r.uid());
        o.set("config", cacheConfig(r.config()));
        return o;
    }

    private static CacheRecord cacheRecord(JsonNode o) {
        return new CacheRecord(CacheName.parse(text(o, "name")), cacheConfig(field(o, "config")), lng(o, "uid"));
    }

    private static ObjectNode streamConfig(StreamConfig c) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("shards", c.shards());
        o.put("durable", c.durable());
        o.put("fsync", c.fsync().wireName());
        o.put("retention_bytes", c.retentionBytes());
        if (c.retentionAge() != null) {
            o.put("retention_age_ms", c.retentionAge().toMillis());
        }
        o.put("consistency", c.consistency().wireName());
        o.put("replicas", c.replicas());
        if (c.noReplay()) {
            o.put("no_replay", true);
        }
        return o;
    }

    private static StreamConfig streamConfig(JsonNode o) {
        return new StreamConfig((int) lng(o, "shards"), bool(o, "durable"), StreamConfig.Fsync.parse(text(o, "fsync")),
                lng(o, "retention_bytes"),
                o.has("retention_age_ms") ? Duration.ofMillis(lng(o, "retention_age_ms")) : null,
                Consistency.parse(text(o, "consistency")), (int) lng(o, "replicas"),
                o.has("no_replay") && bool(o, "no_replay"));
    }

    private static ObjectNode cacheConfig(CacheConfig c) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("backing", c.backing().wireName());
        if (c.defaultTtl() != null) {
            o.put("default_ttl_ms", c.defaultTtl().toMillis());
        }
        o.put("max_entries", c.maxEntries());
        o.put("change_ring_events", c.changeRingEvents());
        o.put("change_ring_bytes", c.changeRingBytes());
        o.put("watcher_queue_events", c.watcherQueue().events());
        o.put("watcher_queue_bytes", c.watcherQueue().bytes());
        o.put("writer_queue_events", c.writerQueue().events());
        o.put("writer_queue_bytes", c.writerQueue().bytes());
        o.put("max_value_bytes", c.maxValueBytes());
        o.put("fsync", c.fsync().wireName());
        o.put("snapshot_every_changes", c.snapshotEveryChanges());
        o.put("segment_bytes", c.segmentBytes());
        o.put("consistency", c.consistency().wireName());
        return o;
    }

    private static CacheConfig cacheConfig(JsonNode o) {
        return new CacheConfig(CacheConfig.Backing.parse(text(o, "backing")),
                o.has("default_ttl_ms") ? Duration.ofMillis(lng(o, "default_ttl_ms")) : null,
                (int) lng(o, "max_entries"), (int) lng(o, "change_ring_events"), lng(o, "change_ring_bytes"),
                new QueueLimits((int) lng(o, "watcher_queue_events"), lng(o, "watcher_queue_bytes")),
                new QueueLimits((int) lng(o, "writer_queue_events"), lng(o, "writer_queue_bytes")),
                (int) lng(o, "max_value_bytes"), StreamConfig.Fsync.parse(text(o, "fsync")),
                lng(o, "snapshot_every_changes"), lng(o, "segment_bytes"),
                o.has("consistency") ? Consistency.parse(text(o, "consistency")) : CacheConfig.DEFAULT_CONSISTENCY);
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] bytes(JsonNode n) {
        try {
            return MAPPER.writeValueAsBytes(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    private static JsonNode parse(byte[] data) {
        if (data.length > MAX_DOCUMENT_BYTES) {
            throw new IllegalArgumentException("document of " + data.length + " bytes is larger than "
                    + MAX_DOCUMENT_BYTES);
        }
        try {
            JsonNode n = MAPPER.readTree(data);
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException("expected a JSON object");
            }
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid JSON: " + e.getMessage(), e);
        }
    }

    private static JsonNode field(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing '" + name + "'");
        }
        return v;
    }

    private static String text(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + name + "' must be a string");
        }
        return v.textValue();
    }

    private static String optText(JsonNode n, String name) {
        JsonNode v = n.get(name);
        return v == null || v.isNull() ? null : text(n, name);
    }

    private static String asText(JsonNode v, String where) {
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + where + "' must hold strings");
        }
        return v.textValue();
    }

    private static long lng(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException("'" + name + "' must be an integer");
        }
        return v.longValue();
    }

    private static boolean bool(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isBoolean()) {
            throw new IllegalArgumentException("'" + name + "' must be true or false");
        }
        return v.booleanValue();
    }

    private static JsonNode array(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isArray()) {
            throw new IllegalArgumentException("'" + name + "' must be an array");
        }
        return v;
    }

    private static List<String> strings(JsonNode n, String name) {
        List<String> out = new ArrayList<>();
        for (JsonNode v : array(n, name)) {
            out.add(asText(v, name));
        }
        return out;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static <E extends Enum<E>> E upper(Class<E> type, String text) {
        try {
            return Enum.valueOf(type, text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown " + type.getSimpleName() + " '" + text + "'");
        }
    }
}
