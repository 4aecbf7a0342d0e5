package dev.felix.cluster.metadata;

import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.StreamRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * All cluster metadata as one immutable value: members and their liveness, tenants, namespaces, streams and
 * caches (with uids), and the placement of every replicated unit. {@link #apply} is a pure function
 * {@code (state, command, log index) -> (state', outcome)}: no clock, no randomness, no I/O, so every node that
 * applies the same log reaches the same state, and it is tested without Raft.
 *
 * <p><b>Threads.</b> Immutable (every map is an unmodifiable copy); share freely. The state machine replaces
 * its current value atomically after each apply, so readers never lock. A change copies only the maps it
 * touches; the state is small (metadata, not data).
 *
 * <p><b>Rules</b> (as {@link dev.felix.core.metadata.LocalMetadata}): creating what exists with the same
 * definition returns the existing record unchanged; with another definition it is refused with
 * {@code already_exists}; a stream or cache needs its tenant ({@code not_found}) and registers its namespace;
 * each create gets a fresh uid, derived from the cluster seed and the log index (deterministic, unique, never 0).
 *
 * <p><b>Placement</b> at create: a durable stream shard gets {@code replicas} copies (0 = {@code min(3, up
 * nodes)}; more than the up nodes is {@code bad_request}) on up nodes; leaders are spread (fewest leaderships
 * first, ties by node id) and followers go to the nodes hosting fewest replicas (ties by id); epoch 1, online.
 * An ephemeral stream shard or a memory cache lives on one node (the one with fewest leaderships); a log-backed
 * cache is placed like a durable stream shard, with its own consistency.
 *
 * @param clusterName  set by the bootstrap node's first entry (null before)
 * @param seed         mixes into every uid, so uids of two clusters differ
 * @param version      log index of the last entry that changed the state (0 for the empty state)
 * @param nodes        members by id
 * @param tenants      registered tenants
 * @param namespaces   registered namespaces, {@code tenant/namespace}
 * @param streams      streams by {@code tenant/namespace/stream}
 * @param caches       caches by {@code tenant/namespace/cache}
 * @param placements   every replicated unit's placement, ordered by {@link #KEY_ORDER}
 */
record ClusterState(String clusterName, long seed, long version, SortedMap<String, Member> nodes,
                    SortedSet<String> tenants, SortedSet<String> namespaces, SortedMap<String, StreamRecord> streams,
                    SortedMap<String, CacheRecord> caches, SortedMap<ShardKey, ShardPlacement> placements) {

    /** Order of units: kind, uid, shard. */
    static final Comparator<ShardKey> KEY_ORDER = Comparator.comparing(ShardKey::kind)
            .thenComparingLong(ShardKey::uid).thenComparingInt(ShardKey::shard);

    /** Replicas of a durable unit when its definition asks for the default (0). */
    static final int DEFAULT_REPLICAS = 3;

    /** Nothing yet: the state before the first entry. */
    static final ClusterState EMPTY = new ClusterState(null, 0, 0, new TreeMap<>(), new TreeSet<>(), new TreeSet<>(),
            new TreeMap<>(), new TreeMap<>(), new TreeMap<>(KEY_ORDER));

    /**
     * A member: what other nodes see ({@link NodeInfo}) and the id of the data dir that registered it.
     *
     * @param instanceId generated once per data dir: a second process claiming the same node id from another
     *                   data dir is refused
     */
    record Member(NodeInfo info, String instanceId) {
        Member {
            Objects.requireNonNull(info, "info");
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /** A state and the outcome of the command that led to it. */
    record Applied(ClusterState state, Outcome outcome) {
    }

    ClusterState {
        nodes = Collections.unmodifiableSortedMap(nodes);
        tenants = Collections.unmodifiableSortedSet(tenants);
        namespaces = Collections.unmodifiableSortedSet(namespaces);
        streams = Collections.unmodifiableSortedMap(streams);
        caches = Collections.unmodifiableSortedMap(caches);
        placements = Collections.unmodifiableSortedMap(placements);
    }

    // ------------------------------------------------------------------ reads

    Optional<NodeInfo> node(String nodeId) {
        Member m = nodes.get(nodeId);
        return m == null ? Optional.empty() : Optional.of(m.info());
    }

    boolean up(String nodeId) {
        Member m = nodes.get(nodeId);
        return m != null && m.info().up();
    }

    /** Every member, sorted by id; unmodifiable. */
    List<NodeInfo> nodeInfos() {
        List<NodeInfo> out = new ArrayList<>(nodes.size());
        for (Member m : nodes.values()) {
            out.add(m.info());
        }
        return Collections.unmodifiableList(out);
    }

    static String key(StreamName n) {
        return n.tenant() + "/" + n.namespace() + "/" + n.stream();
    }

    static String key(CacheName n) {
        return n.tenant() + "/" + n.namespace() + "/" + n.cache();
    }

    /** Streams of {@code tenant} (and {@code namespace} if not null), sorted by namespace then name. */
    List<StreamRecord> streams(String tenant, String namespace) {
        List<StreamRecord> out = new ArrayList<>();
        for (StreamRecord r : streams.tailMap(tenant + "/").values()) {
            if (!r.name().tenant().equals(tenant)) {
                break;
            }
            if (namespace == null || r.name().namespace().equals(namespace)) {
                out.add(r);
            }
        }
        return out;
    }

    /** Caches of {@code tenant} (and {@code namespace} if not null), sorted by namespace then name. */
    List<CacheRecord> caches(String tenant, String namespace) {
        List<CacheRecord> out = new ArrayList<>();
        for (CacheRecord r : caches.tailMap(tenant + "/").values()) {
            if (!r.name().tenant().equals(tenant)) {
                break;
            }
            if (namespace == null || r.name().namespace().equals(namespace)) {
                out.add(r);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ apply

    /**
     * {@link #apply(Command, long, long)} of an entry whose term is not known: a {@link Command.Decided} is refused
     * (its term is never negative).
     */
    Applied apply(Command command, long index) {
        return apply(command, index, -1);
    }

    /**
     * Applies {@code command}, the log entry at {@code index} of {@code term}. Pure and deterministic; a refused
     * command returns this state unchanged. {@link #version()} of the result is {@code index} when the state changed.
     * A {@link Command.Decided} is applied only when it was decided in {@code term} (refused with
     * {@link ErrorCode#NOT_LEADER} otherwise).
     */
    Applied apply(Command command, long index, long term) {
        Objects.requireNonNull(command, "command");
        if (command instanceof Command.Decided d) {
            if (d.term() != term) {
                return refused(ErrorCode.NOT_LEADER, "a failover decision made as metadata leader in term " + d.term()
                        + " reached the log in term " + term + ": the node that made it had been deposed, and what"
                        + " it decided from may be stale");
            }
            command = d.decision();
        }
        if (command instanceof Command.InitCluster c) {
            return initCluster(c, index);
        } else if (command instanceof Command.RegisterNode c) {
            return registerNode(c, index);
        } else if (command instanceof Command.SetNodeStatus c) {
            return setNodeStatus(c, index);
        } else if (command instanceof Command.CreateTenant c) {
            return createTenant(c, index);
        } else if (command instanceof Command.CreateStream c) {
            return createStream(c, index);
        } else if (command instanceof Command.DeleteStream c) {
            return deleteStream(c, index);
        } else if (command instanceof Command.CreateCache c) {
            return createCache(c, index);
        } else if (command instanceof Command.DeleteCache c) {
            return deleteCache(c, index);
        } else if (command instanceof Command.SetLeader c) {
            return setLeader(c, index);
        } else if (command instanceof Command.SetUnavailable c) {
            return setUnavailable(c, index);
        } else if (command instanceof Command.HandOff c) {
            return handOff(c, index);
        } else if (command instanceof Command.ResumeLeadership c) {
            return resumeLeadership(c, index);
        } else if (command instanceof Command.Barrier) {
            return unchanged(null);
        }
        throw new IllegalArgumentException("unknown command " + command.getClass().getName());
    }

    private Applied unchanged(Object value) {
        return new Applied(this, Outcome.done(value));
    }

    private Applied refused(ErrorCode code, String message) {
        return new Applied(this, Outcome.refused(code, message));
    }

    private Applied initCluster(Command.InitCluster c, long index) {
        if (clusterName != null) {
            return unchanged(null);
        }
        ClusterState next = new ClusterState(c.clusterName(), c.seed(), index, nodes, tenants, namespaces, streams,
                caches, placements);
        return new Applied(next, Outcome.done(null));
    }

    private Applied registerNode(Command.RegisterNode c, long index) {
        Member existing = nodes.get(c.nodeId());
        if (existing != null && !existing.instanceId().equals(c.instanceId())) {
            return refused(ErrorCode.ALREADY_EXISTS, "node id '" + c.nodeId() + "' is already a member of this"
                    + " cluster, registered from another data directory (instance " + existing.instanceId()
                    + "; this one is " + c.instanceId() + "): give this node another node_id, or start it from"
                    + " the data directory it was created with");
        }
        NodeInfo info = new NodeInfo(c.nodeId(), c.clientAddress(), c.peerAddress(), c.raftAddress(), NodeStatus.UP,
                c.incarnation());
        if (existing != null && existing.info().equals(info)) {
            return unchanged(info);
        }
        TreeMap<String, Member> n = new TreeMap<>(nodes);
        n.put(c.nodeId(), new Member(info, c.instanceId()));
        return new Applied(withNodes(n, index), Outcome.done(info));
    }

    private Applied setNodeStatus(Command.SetNodeStatus c, long index) {
        Member m = nodes.get(c.nodeId());
        if (m == null) {
            return refused(ErrorCode.NOT_FOUND, "node '" + c.nodeId() + "' is not a member");
        }
        if (m.info().incarnation() != c.expectedIncarnation()) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.nodeId() + "' is at incarnation "
                    + m.info().incarnation() + ", not " + c.expectedIncarnation() + " (it restarted)");
        }
        if (m.info().status() == c.status()) {
            return unchanged(m.info());
        }
        NodeInfo i = m.info();
        NodeInfo info = new NodeInfo(i.nodeId(), i.clientAddress(), i.peerAddress(), i.raftAddress(), c.status(),
                i.incarnation());
        TreeMap<String, Member> n = new TreeMap<>(nodes);
        n.put(c.nodeId(), new Member(info, m.instanceId()));
        return new Applied(withNodes(n, index), Outcome.done(info));
    }

    private Applied createTenant(Command.CreateTenant c, long index) {
        try {
            StreamName.checkPart("tenant", c.tenant());
        } catch (IllegalArgumentException e) {
            return refused(ErrorCode.BAD_REQUEST, e.getMessage());
        }
        if (tenants.contains(c.tenant())) {
            return unchanged(null);
        }
        TreeSet<String> t = new TreeSet<>(tenants);
        t.add(c.tenant());
        return new Applied(new ClusterState(clusterName, seed, index, nodes, t, namespaces, streams, caches,
                placements), Outcome.done(null));
    }

    private Applied createStream(Command.CreateStream c, long index) {
        StreamName name = c.name();
        StreamConfig config = c.config();
        StreamRecord existing = streams.get(key(name));
        if (existing != null) {
            if (!existing.config().equals(config)) {
                return refused(ErrorCode.ALREADY_EXISTS, "stream " + name + " exists with a different definition ("
                        + describe(existing.config()) + ")");
            }
            return unchanged(existing);
        }
        if (!tenants.contains(name.tenant())) {
            return refused(ErrorCode.NOT_FOUND, "tenant '" + name.tenant() + "' not found");
        }
        List<String> up = upNodes();
        if (up.isEmpty()) {
            return refused(ErrorCode.UNAVAILABLE, "no node is up to place stream " + name + " on");
        }
        int replicas = 1;
        if (config.durable()) {
            replicas = config.replicas() == 0 ? Math.min(DEFAULT_REPLICAS, up.size()) : config.replicas();
            if (replicas > up.size()) {
                return refused(ErrorCode.BAD_REQUEST, "replicas " + replicas + " is more than the " + up.size()
                        + " node" + (up.size() == 1 ? " that is" : "s that are") + " up; ask for at most "
                        + up.size() + " or start more nodes");
            }
        }
        long uid = uid(index);
        StreamRecord record = new StreamRecord(name, config, uid);
        Consistency consistency = config.durable() ? config.consistency() : Consistency.LEADER;
        TreeMap<ShardKey, ShardPlacement> p = new TreeMap<>(KEY_ORDER);
        p.putAll(placements);
        Loads loads = loads();
        for (int shard = 0; shard < config.shards(); shard++) {
            ShardPlacement placement = place(ShardKey.stream(uid, shard), name.toString(), config.durable(),
                    consistency, replicas, up, loads);
            p.put(placement.key(), placement);
        }
        TreeMap<String, StreamRecord> s = new TreeMap<>(streams);
        s.put(key(name), record);
        return new Applied(new ClusterState(clusterName, seed, index, nodes, tenants,
                withNamespace(name.tenant(), name.namespace()), s, caches, p), Outcome.done(record));
    }

    private Applied deleteStream(Command.DeleteStream c, long index) {
        StreamRecord existing = streams.get(key(c.name()));
        if (existing == null) {
            return refused(ErrorCode.NOT_FOUND, "stream '" + c.name() + "' not found");
        }
        TreeMap<String, StreamRecord> s = new TreeMap<>(streams);
        s.remove(key(c.name()));
        return new Applied(new ClusterState(clusterName, seed, index, nodes, tenants, namespaces, s, caches,
                without(ShardKey.Kind.STREAM, existing.uid())), Outcome.done(existing));
    }

    private Applied createCache(Command.CreateCache c, long index) {
        CacheName name = c.name();
        CacheConfig config = c.config();
        CacheRecord existing = caches.get(key(name));
        if (existing != null) {
            if (!existing.config().equals(config)) {
                return refused(ErrorCode.ALREADY_EXISTS, "cache " + name + " exists with a different definition ("
                        + existing.config().backing().wireName() + ")");
            }
            return unchanged(existing);
        }
        if (!tenants.contains(name.tenant())) {
            return refused(ErrorCode.NOT_FOUND, "tenant '" + name.tenant() + "' not found");
        }
        List<String> up = upNodes();
        if (up.isEmpty()) {
            return refused(ErrorCode.UNAVAILABLE, "no node is up to place cache " + name + " on");
        }
        boolean durable = config.backing() == CacheConfig.Backing.LOG;
        int replicas = durable ? Math.min(DEFAULT_REPLICAS, up.size()) : 1;
        long uid = uid(index);
        CacheRecord record = new CacheRecord(name, config, uid);
        ShardPlacement placement = place(ShardKey.cache(uid), name.toString(), durable, config.consistency(), replicas,
                up, loads());
        TreeMap<ShardKey, ShardPlacement> p = new TreeMap<>(KEY_ORDER);
        p.putAll(placements);
        p.put(placement.key(), placement);
        TreeMap<String, CacheRecord> cs = new TreeMap<>(caches);
        cs.put(key(name), record);
        return new Applied(new ClusterState(clusterName, seed, index, nodes, tenants,
                withNamespace(name.tenant(), name.namespace()), streams, cs, p), Outcome.done(record));
    }

    private Applied deleteCache(Command.DeleteCache c, long index) {
        CacheRecord existing = caches.get(key(c.name()));
        if (existing == null) {
            return refused(ErrorCode.NOT_FOUND, "cache '" + c.name() + "' not found");
        }
        TreeMap<String, CacheRecord> cs = new TreeMap<>(caches);
        cs.remove(key(c.name()));
        return new Applied(new ClusterState(clusterName, seed, index, nodes, tenants, namespaces, streams, cs,
                without(ShardKey.Kind.CACHE, existing.uid())), Outcome.done(existing));
    }

    private Applied setLeader(Command.SetLeader c, long index) {
        ShardPlacement p = placements.get(c.key());
        Applied stale = checkEpoch(p, c.key(), c.expectedEpoch());
        if (stale != null) {
            return stale;
        }
        List<String> replicas = p.replicas();
        if (c.replicas() != null) {
            if (p.durable()) {
                return refused(ErrorCode.BAD_REQUEST, c.key() + " keeps a log: its replica set is fixed at"
                        + " creation and moves only by promotion of a replica");
            }
            replicas = c.replicas();
        }
        if (!replicas.contains(c.newLeader())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.newLeader() + "' is not a replica of " + c.key()
                    + " (replicas " + replicas + ")");
        }
        if (!up(c.newLeader())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.newLeader() + "' is not up");
        }
        return withPlacement(new ShardPlacement(p.key(), p.name(), p.durable(), p.consistency(), replicas,
                c.newLeader(), p.epoch() + 1, ShardStatus.ONLINE, null), index);
    }

    private Applied setUnavailable(Command.SetUnavailable c, long index) {
        ShardPlacement p = placements.get(c.key());
        Applied stale = checkEpoch(p, c.key(), c.expectedEpoch());
        if (stale != null) {
            return stale;
        }
        if (p.status() == ShardStatus.UNAVAILABLE && c.reason().equals(p.reason())) {
            return unchanged(p);
        }
        return withPlacement(new ShardPlacement(p.key(), p.name(), p.durable(), p.consistency(), p.replicas(),
                p.leader(), p.epoch(), ShardStatus.UNAVAILABLE, c.reason()), index);
    }

    private Applied handOff(Command.HandOff c, long index) {
        ShardPlacement p = placements.get(c.key());
        Applied stale = checkEpoch(p, c.key(), c.expectedEpoch());
        if (stale != null) {
            return stale;
        }
        if (!c.fromNode().equals(p.leader())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.fromNode() + "' is not the leader of " + c.key()
                    + " ('" + p.leader() + "' is)");
        }
        if (c.toNode().equals(c.fromNode())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.toNode() + "' leads " + c.key() + " already");
        }
        if (!p.replicas().contains(c.toNode())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.toNode() + "' is not a replica of " + c.key()
                    + " (replicas " + p.replicas() + ")");
        }
        if (!up(c.toNode())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.toNode() + "' is not up");
        }
        return withPlacement(new ShardPlacement(p.key(), p.name(), p.durable(), p.consistency(), p.replicas(),
                c.toNode(), p.epoch() + 1, ShardStatus.ONLINE, null), index);
    }

    private Applied resumeLeadership(Command.ResumeLeadership c, long index) {
        ShardPlacement p = placements.get(c.key());
        Applied stale = checkEpoch(p, c.key(), c.expectedEpoch());
        if (stale != null) {
            return stale;
        }
        if (!c.node().equals(p.leader())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.node() + "' is not the recorded leader of " + c.key()
                    + " ('" + p.leader() + "' is)");
        }
        if (!up(c.node())) {
            return refused(ErrorCode.BAD_REQUEST, "node '" + c.node() + "' is not up: register it first");
        }
        return withPlacement(new ShardPlacement(p.key(), p.name(), p.durable(), p.consistency(), p.replicas(),
                p.leader(), p.epoch() + 1, ShardStatus.ONLINE, null), index);
    }

    /** Null when {@code p} exists at {@code expectedEpoch}; otherwise the refusal. */
    private Applied checkEpoch(ShardPlacement p, ShardKey key, long expectedEpoch) {
        if (p == null) {
            return refused(ErrorCode.NOT_FOUND, key + " does not exist");
        }
        if (p.epoch() != expectedEpoch) {
            return refused(ErrorCode.BAD_REQUEST, key + " is at epoch " + p.epoch() + ", not " + expectedEpoch
                    + " (another transition came first)");
        }
        return null;
    }

    // ------------------------------------------------------------------ helpers

    private Applied withPlacement(ShardPlacement placement, long index) {
        TreeMap<ShardKey, ShardPlacement> p = new TreeMap<>(KEY_ORDER);
        p.putAll(placements);
        p.put(placement.key(), placement);
        return new Applied(new ClusterState(clusterName, seed, index, nodes, tenants, namespaces, streams, caches, p),
                Outcome.done(placement));
    }

    private ClusterState withNodes(SortedMap<String, Member> n, long index) {
        return new ClusterState(clusterName, seed, index, n, tenants, namespaces, streams, caches, placements);
    }

    private SortedSet<String> withNamespace(String tenant, String namespace) {
        String ns = tenant + "/" + namespace;
        if (namespaces.contains(ns)) {
            return namespaces;
        }
        TreeSet<String> out = new TreeSet<>(namespaces);
        out.add(ns);
        return out;
    }

    private SortedMap<ShardKey, ShardPlacement> without(ShardKey.Kind kind, long uid) {
        TreeMap<ShardKey, ShardPlacement> p = new TreeMap<>(KEY_ORDER);
        for (ShardPlacement sp : placements.values()) {
            if (sp.key().kind() != kind || sp.key().uid() != uid) {
                p.put(sp.key(), sp);
            }
        }
        return p;
    }

    /** Ids of up members, sorted. */
    List<String> upNodes() {
        List<String> out = new ArrayList<>();
        for (Member m : nodes.values()) {
            if (m.info().up()) {
                out.add(m.info().nodeId());
            }
        }
        return out;
    }

    /** How many units each node leads and hosts; placement updates it as it goes. */
    static final class Loads {
        final Map<String, Integer> leaderships = new HashMap<>();
        final Map<String, Integer> hosted = new HashMap<>();

        int leaderships(String node) {
            return leaderships.getOrDefault(node, 0);
        }

        int hosted(String node) {
            return hosted.getOrDefault(node, 0);
        }

        /** The candidate with fewest leaderships, ties by id. */
        String leastLeading(List<String> candidates) {
            String best = null;
            for (String n : candidates) {
                if (best == null || leaderships(n) < leaderships(best)
                        || (leaderships(n) == leaderships(best) && n.compareTo(best) < 0)) {
                    best = n;
                }
            }
            return best;
        }
    }

    Loads loads() {
        Loads l = new Loads();
        for (ShardPlacement p : placements.values()) {
            l.leaderships.merge(p.leader(), 1, Integer::sum);
            for (String r : p.replicas()) {
                l.hosted.merge(r, 1, Integer::sum);
            }
        }
        return l;
    }

    private static ShardPlacement place(ShardKey key, String name, boolean durable, Consistency consistency,
                                        int replicas, List<String> up, Loads loads) {
        String leader = loads.leastLeading(up);
        List<String> others = new ArrayList<>(up);
        others.remove(leader);
        others.sort(Comparator.comparingInt(loads::hosted).thenComparing(Comparator.naturalOrder()));
        List<String> followers = new ArrayList<>(others.subList(0, replicas - 1));
        followers.sort(null);
        List<String> set = new ArrayList<>(replicas);
        set.add(leader);
        set.addAll(followers);
        loads.leaderships.merge(leader, 1, Integer::sum);
        for (String r : set) {
            loads.hosted.merge(r, 1, Integer::sum);
        }
        return new ShardPlacement(key, name, durable, consistency, set, leader, 1, ShardStatus.ONLINE, null);
    }

    /** A uid for the entry at {@code index}: unique per index, mixed with the cluster seed, never 0. */
    long uid(long index) {
        long z = seed + index * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return z == 0 ? 1 : z;
    }

    static String describe(StreamConfig c) {
        return "shards=" + c.shards() + ", durable=" + c.durable()
                + (c.durable() ? ", fsync=" + c.fsync().wireName() + ", consistency=" + c.consistency().wireName()
                + ", replicas=" + c.replicas() : "");
    }
}
