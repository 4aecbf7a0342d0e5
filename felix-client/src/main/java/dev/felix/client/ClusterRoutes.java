package dev.felix.client;

import dev.felix.wire.ClusterNodeStatus;
import dev.felix.wire.ClusterShardStatus;
import dev.felix.wire.LeaderInfo;
import dev.felix.wire.Message;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each shard's leader is, as the cluster last told this client: from {@code cluster_status} answers and
 * from the {@code leader} of {@code not_leader} refusals. A route is a hint: a stale one costs one redirect.
 * Thread-safe.
 */
final class ClusterRoutes {

    private record Route(String name, int shard) {
    }

    private final Map<Route, InetSocketAddress> leaders = new ConcurrentHashMap<>();
    private final Map<String, InetSocketAddress> nodes = new ConcurrentHashMap<>();

    /** The leader of {@code shard} of {@code name}, or null when unknown (ask the cluster again). */
    InetSocketAddress leader(String name, int shard) {
        return leaders.get(new Route(name, shard));
    }

    /** A refusal named the leader: remember it. False when the hint names no usable address. */
    boolean learned(String name, int shard, LeaderInfo leader) {
        InetSocketAddress address = leader == null ? null : address(leader.addr());
        if (address == null) {
            return false;
        }
        leaders.put(new Route(name, shard), address);
        if (leader.node() != null) {
            nodes.put(leader.node(), address);
        }
        return true;
    }

    /** The route failed (the node is gone, or says nobody can serve): ask the cluster next time. */
    void forget(String name, int shard) {
        leaders.remove(new Route(name, shard));
    }

    /** Takes every member's address and every online shard's leader from a {@code cluster_status} answer. */
    void update(Message.ClusterStatusResult status) {
        for (ClusterNodeStatus n : status.nodes()) {
            InetSocketAddress a = address(n.addr());
            if (a != null) {
                nodes.put(n.node(), a);
            }
        }
        for (ClusterShardStatus s : status.shards()) {
            Route route = new Route("cache".equals(s.kind()) ? cacheRoute(s.name()) : s.name(), s.shard());
            InetSocketAddress a = s.leader() == null ? null : nodes.get(s.leader());
            if ("online".equals(s.status()) && a != null) {
                leaders.put(route, a);
            } else {
                leaders.remove(route);
            }
        }
    }

    /** Every node address known: {@code first} ones in their order, then members the cluster named. */
    List<InetSocketAddress> candidates(List<InetSocketAddress> first) {
        Set<InetSocketAddress> all = new LinkedHashSet<>(first);
        all.addAll(nodes.values());
        return new ArrayList<>(all);
    }

    /** The route name of cache {@code name} (shard 0): apart from a stream of the same name. */
    static String cacheRoute(String name) {
        return "cache:" + name;
    }

    /** {@code host:port} as an address, or null if it is not one. */
    static InetSocketAddress address(String hostPort) {
        if (hostPort == null) {
            return null;
        }
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        try {
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new InetSocketAddress(host, Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
