package dev.felix.cluster.metadata;

import dev.felix.cluster.NodeStatus;
import dev.felix.cluster.ReplicaReport;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.ShardStatus;
import dev.felix.core.Consistency;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Liveness and failover decisions, as the Raft leader takes them: a pure function of the committed state, what
 * the leader heard from each node (in memory, never in Raft) and the time. It proposes commands; it changes
 * nothing itself. Every proposal is a compare-and-set (on the node's incarnation, on the unit's epoch), so a
 * decision taken from a view that another commit has overtaken is refused by {@link ClusterState#apply}, never
 * applied twice or applied stale. The caller submits each wrapped in a {@link Command.Decided} of its term, so what a
 * deposed leader decides from what it heard before a pause is refused too.
 *
 * <p><b>Rules.</b>
 * <ul>
 *   <li>Liveness. A node is silent from {@code max(last heartbeat, leaderSince, registered)}: a new leader
 *       grants every node a full failure timeout of grace, and so does a (re-)registration; except the previous
 *       Raft leader, silent from when the new leader last heard from it as its follower (it heartbeated only to
 *       itself, and an election means a majority stopped hearing it) until its Raft server answers the new leader
 *       ({@link PredecessorGrace}, which builds {@code silentFrom}). An {@code UP}
 *       node silent for the failure timeout is set {@code DOWN}, unless its Raft server answered this leader within
 *       the last {@link #raftAnswerWindow} (half the failure timeout, at most 1 s): its process runs, and its
 *       heartbeats may be lost in a connection that stopped answering, which the node reconnects
 *       ({@code HeartbeatSender.reconnectIfBroken}). Such a node is set {@code DOWN} after twice the failure timeout
 *       (a node whose Raft server answers but which never heartbeats is stuck, and its units must fail over).
 *       "Answered lately" is judged afresh every round, so a node that stops (frozen, killed, cut off) is set
 *       {@code DOWN} once its heartbeats are a failure timeout old and its last answer a window old: as before when
 *       it stopped within a window of its last heartbeat, and never later than a failure timeout after it stopped;
 *       a {@code DOWN} node heard again (same incarnation, after {@code leaderSince}, within the timeout) is set
 *       {@code UP}.</li>
 *   <li>Only the committed state counts: a unit is failed over once its leader's {@code DOWN} is committed, on a
 *       later decision round.</li>
 *   <li>A unit without a log (ephemeral stream shard, memory cache) whose leader is down moves to the up node
 *       leading fewest units (ties by id), as its only replica.</li>
 *   <li>{@code quorum}: reports of the other replicas count only if fenced at the unit's epoch or later
 *       ({@code fencedEpoch >= epoch}: they stopped following the lost leader, so their logs cannot grow) and
 *       fresh (heard since {@code leaderSince}, within the failure timeout, from an up node). Once they cover a
 *       majority of the replica set, the one with the highest {@code (lastEpoch, logEnd)} (ties: lowest node id)
 *       is promoted. Until then the unit is unavailable with {@value #NO_MAJORITY}.</li>
 *   <li>{@code leader}: never promoted; unavailable with {@value #LEADER_GONE}. Its leader and epoch stay: the
 *       leader takes it back with {@code resumeLeadership} when it returns.</li>
 * </ul>
 *
 * <p><b>Threads.</b> Stateless; pure static functions.
 */
final class FailoverDecider {

    /** Reason of a {@code leader}-consistency unit whose leader is down. Clients get exactly these words. */
    static final String LEADER_GONE = "the leader is gone and no replica holding this shard's log can take over";
    /** Reason of a {@code quorum} unit whose leader is down while too few replicas reported fenced. */
    static final String NO_MAJORITY = "no majority of replicas has reported since the leader was lost";
    /** Reason of a unit without a log whose node is down while no other node is up. */
    static final String NO_NODE_UP = "its node is down and no other node is up to host it";

    private FailoverDecider() {
    }

    /**
     * What the leader last heard from a node.
     *
     * @param atMillis    when (the leader's clock)
     * @param incarnation the node's incarnation then
     * @param sequence    that heartbeat's number ({@link Heartbeat#sequence()})
     * @param reports     its replica reports then
     */
    record Heard(long atMillis, long incarnation, long sequence, List<ReplicaReport> reports) {
        Heard {
            reports = List.copyOf(reports);
        }

        ReplicaReport report(ShardKey key) {
            for (ReplicaReport r : reports) {
                if (r.key().equals(key)) {
                    return r;
                }
            }
            return null;
        }
    }

    /** What a decision does, for metrics and logs. */
    enum Kind {
        NODE_DOWN, NODE_UP, PROMOTED, MOVED, UNAVAILABLE
    }

    /** One proposal: a command and what kind of decision it is. */
    record Decision(Command command, Kind kind) {
        Decision {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * One round's outcome.
     *
     * @param decisions what to propose now
     * @param spared    the up nodes silent for the failure timeout that stay up this round only because their Raft
     *                  server answered this leader lately (declared down after twice the failure timeout unless they
     *                  heartbeat again), by node id
     */
    record Round(List<Decision> decisions, java.util.Set<String> spared) {
        Round {
            decisions = List.copyOf(decisions);
            spared = java.util.Set.copyOf(spared);
        }
    }

    /**
     * The commands the Raft leader should propose now.
     *
     * @param state          the committed state
     * @param heard          what this leader heard from each node since it last started leading (by node id)
     * @param registered     per node id, when this leader first saw the node's current incarnation in the
     *                       committed state (a node that just registered or re-registered has not missed
     *                       anything yet); missing entries count as {@code leaderSince}
     * @param nowMillis      the leader's clock
     * @param leaderSince    when this leader started leading (its clock)
     * @param failureTimeout milliseconds of silence that make a node down
     */
    static List<Decision> decide(ClusterState state, Map<String, Heard> heard, Map<String, Long> registered,
                                 long nowMillis, long leaderSince, long failureTimeout) {
        return decide(state, heard, registered, Map.of(), nowMillis, leaderSince, failureTimeout);
    }

    /**
     * One round of the Raft leader's decider: as {@link #decide(ClusterState, Map, Map, Map, Map, long, long, long)}
     * with the predecessor's silence ({@link PredecessorGrace}), where neither that silence nor the leadership's grace
     * is counted from before the decider's last pause ({@link DeciderPauses}); {@code raftAnsweredAt} says when each
     * node's Raft server last answered this leader (real answers only, {@link PredecessorGrace#answeredAt}).
     */
    static Round decideRound(ClusterState state, Map<String, Heard> heard, Map<String, Long> registered,
                             Map<String, Long> raftAnsweredAt, PredecessorGrace predecessor, DeciderPauses pauses,
                             long nowMillis, long leaderSince, long failureTimeout) {
        return round(state, heard, registered, pauses.notBefore(predecessor.silentFrom()), raftAnsweredAt,
                nowMillis, pauses.notBefore(leaderSince), failureTimeout);
    }

    /**
     * As above, where a node in {@code silentFrom} is known silent since an earlier time than {@code leaderSince}
     * (the previous Raft leader: since this leader last heard from it while following it), so its grace starts
     * there instead of at this leadership's start.
     */
    static List<Decision> decide(ClusterState state, Map<String, Heard> heard, Map<String, Long> registered,
                                 Map<String, Long> silentFrom, long nowMillis, long leaderSince, long failureTimeout) {
        return decide(state, heard, registered, silentFrom, Map.of(), nowMillis, leaderSince, failureTimeout);
    }

    /**
     * How recent a Raft answer must be for a silent node to count as running: half the failure timeout, at most
     * {@code RaftMetadata.ELECTION_TIMEOUT_MAX} (1 s). Not longer: Ratis dates a follower it starts tracking (an
     * appender restarted, a member added during a leadership) that long before, and such a date is no answer.
     */
    static long raftAnswerWindow(long failureTimeout) {
        return Math.min(failureTimeout / 2, RaftMetadata.ELECTION_TIMEOUT_MAX.toMillis());
    }

    /**
     * As above, where a node whose Raft server answered this leader within the last {@link #raftAnswerWindow}
     * ({@code raftAnsweredAt}) is declared down after twice the failure timeout of silence, not once.
     */
    static List<Decision> decide(ClusterState state, Map<String, Heard> heard, Map<String, Long> registered,
                                 Map<String, Long> silentFrom, Map<String, Long> raftAnsweredAt, long nowMillis,
                                 long leaderSince, long failureTimeout) {
        return round(state, heard, registered, silentFrom, raftAnsweredAt, nowMillis, leaderSince, failureTimeout)
                .decisions();
    }

    /** As {@link #decide(ClusterState, Map, Map, Map, Map, long, long, long)}, with the nodes it spared. */
    static Round round(ClusterState state, Map<String, Heard> heard, Map<String, Long> registered,
                       Map<String, Long> silentFrom, Map<String, Long> raftAnsweredAt, long nowMillis,
                       long leaderSince, long failureTimeout) {
        List<Decision> out = new ArrayList<>();
        java.util.Set<String> spared = new java.util.HashSet<>();
        for (ClusterState.Member m : state.nodes().values()) {
            String id = m.info().nodeId();
            Heard h = fresh(heard.get(id), leaderSince);
            long graceFrom = Math.min(leaderSince, silentFrom.getOrDefault(id, leaderSince));
            long silentSince = Math.max(graceFrom, registered.getOrDefault(id, graceFrom));
            if (h != null) {
                silentSince = Math.max(silentSince, h.atMillis());
            }
            Long answered = raftAnsweredAt.get(id);
            boolean running = answered != null && nowMillis - answered < raftAnswerWindow(failureTimeout);
            long silent = nowMillis - silentSince;
            if (m.info().status() == NodeStatus.UP && silent >= (running ? 2 : 1) * failureTimeout) {
                out.add(new Decision(new Command.SetNodeStatus(id, NodeStatus.DOWN, m.info().incarnation()),
                        Kind.NODE_DOWN));
            } else if (m.info().status() == NodeStatus.UP && silent >= failureTimeout) {
                spared.add(id); // running: only the Raft answers keep it up
            } else if (m.info().status() == NodeStatus.DOWN && h != null && nowMillis - h.atMillis() < failureTimeout
                    && h.incarnation() == m.info().incarnation()) {
                out.add(new Decision(new Command.SetNodeStatus(id, NodeStatus.UP, m.info().incarnation()),
                        Kind.NODE_UP));
            }
        }
        ClusterState.Loads loads = state.loads();
        for (ShardPlacement p : state.placements().values()) {
            if (state.up(p.leader())) {
                continue;
            }
            if (!p.durable()) {
                List<String> up = state.upNodes();
                if (up.isEmpty()) {
                    if (p.status() == ShardStatus.ONLINE) {
                        out.add(new Decision(new Command.SetUnavailable(p.key(), p.epoch(), NO_NODE_UP),
                                Kind.UNAVAILABLE));
                    }
                    continue;
                }
                String target = loads.leastLeading(up);
                loads.leaderships.merge(target, 1, Integer::sum);
                out.add(new Decision(new Command.SetLeader(p.key(), target, p.epoch(), List.of(target)), Kind.MOVED));
            } else if (p.consistency() == Consistency.QUORUM) {
                ReplicaReport best = null;
                String bestNode = null;
                int fenced = 0;
                for (String replica : p.replicas()) {
                    if (replica.equals(p.leader()) || !state.up(replica)) {
                        continue;
                    }
                    Heard h = fresh(heard.get(replica), leaderSince);
                    if (h == null || nowMillis - h.atMillis() >= failureTimeout) {
                        continue;
                    }
                    ReplicaReport r = h.report(p.key());
                    if (r == null || r.fencedEpoch() < p.epoch()) {
                        continue;
                    }
                    fenced++;
                    if (best == null || BETTER.compare(new Candidate(replica, r), new Candidate(bestNode, best)) < 0) {
                        best = r;
                        bestNode = replica;
                    }
                }
                if (fenced >= p.majority()) {
                    out.add(new Decision(new Command.SetLeader(p.key(), bestNode, p.epoch(), null), Kind.PROMOTED));
                } else if (p.status() == ShardStatus.ONLINE) {
                    out.add(new Decision(new Command.SetUnavailable(p.key(), p.epoch(), NO_MAJORITY),
                            Kind.UNAVAILABLE));
                }
            } else if (p.status() == ShardStatus.ONLINE) {
                out.add(new Decision(new Command.SetUnavailable(p.key(), p.epoch(), LEADER_GONE), Kind.UNAVAILABLE));
            }
        }
        return new Round(out, spared);
    }

    /** {@code h} if heard since {@code leaderSince}, else null (heard by an earlier leadership: stale). */
    private static Heard fresh(Heard h, long leaderSince) {
        return h == null || h.atMillis() < leaderSince ? null : h;
    }

    private record Candidate(String node, ReplicaReport report) {
    }

    /** Highest {@code (lastEpoch, logEnd)} first; ties: lowest node id. */
    private static final Comparator<Candidate> BETTER = Comparator
            .comparingLong((Candidate c) -> c.report().lastEpoch()).reversed()
            .thenComparing(Comparator.comparingLong((Candidate c) -> c.report().logEnd()).reversed())
            .thenComparing(Candidate::node);
}
