package dev.felix.cluster.metadata;

import java.util.Map;
import java.util.Objects;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;

/**
 * How much grace a newly elected Raft leader gives the leader it replaced, its predecessor, before declaring it
 * down: tells a dead predecessor from a live one by whether its Raft server answers the new leader.
 *
 * <p>Why: every other node gets a full failure timeout from the election to find the new leader with its
 * heartbeats. The predecessor heartbeated only to itself, and an election means a majority stopped hearing it, so
 * its silence counts from when this node last heard from it as its follower; otherwise losing the Raft leader's node
 * cost an election plus a whole extra failure timeout. But after a pause of the whole cluster the predecessor may be
 * alive and yet silent to everyone: it stepped down on its own, and its heartbeats went to itself, or to no leader,
 * until someone was elected. It answers the new leader's appends at once, though, while its heartbeats take a client
 * attempt to find the new leader. So:
 *
 * <ul>
 *   <li>once its Raft server has answered this leader ({@link #answeredThisLeader}), it is alive and gets the full
 *       failure timeout from the election, like every node;</li>
 *   <li>until then its silence counts from when it was last heard, but it is not declared down within
 *       {@code answerWindowMillis} of the election: the time a live member takes to answer a new leader.</li>
 * </ul>
 *
 * <p>For part of 2026-12-06 the grace was a fixed 1.5 s from the election (a heartbeat interval and a client
 * attempt, the time a live predecessor's heartbeat takes to find the new leader), which a dead predecessor got too:
 * a killed or frozen Raft leader failed over about a second later than any other node.
 *
 * <p>Known limit: Ratis restarts a follower's log appender after an unexpected appender error, stamping the new
 * appender's "last reply" a whole RPC timeout before the restart. A restart more than that long after the election
 * makes a predecessor that never answered look answered: it then gets the full failure timeout from the election
 * (declared down about a second later than otherwise), never less grace than it should.
 *
 * <p>Decider thread only.
 */
final class PredecessorGrace {

    private static final PredecessorGrace NONE = new PredecessorGrace(null, 0);

    private final String nodeId;
    private final long silentFrom;
    private boolean answered;

    private PredecessorGrace(String nodeId, long silentFrom) {
        this.nodeId = nodeId;
        this.silentFrom = silentFrom;
    }

    /** No predecessor: this node led before the election too, or followed no one. */
    static PredecessorGrace none() {
        return NONE;
    }

    /**
     * This node was elected at {@code nowMillis}, replacing {@code nodeId}, which it last heard from at
     * {@code lastHeardMillis} while following it.
     */
    static PredecessorGrace atElection(String nodeId, long lastHeardMillis, long nowMillis, long failureTimeoutMillis,
                                       long answerWindowMillis) {
        Objects.requireNonNull(nodeId, "nodeId");
        if (answerWindowMillis < 0 || answerWindowMillis > failureTimeoutMillis) {
            throw new IllegalArgumentException("answerWindowMillis must be within 0.." + failureTimeoutMillis + ": "
                    + answerWindowMillis);
        }
        long floor = nowMillis - failureTimeoutMillis + answerWindowMillis;
        return new PredecessorGrace(nodeId, Math.min(nowMillis, Math.max(lastHeardMillis, floor)));
    }

    /** The predecessor's node id, or null when there is none. */
    String nodeId() {
        return nodeId;
    }

    /** Whether the predecessor has yet to answer this leader (there is one, and it has not answered). */
    boolean awaitingAnswer() {
        return nodeId != null && !answered;
    }

    /** Its Raft server answered this leader: from now on it has the grace of every node. No-op without one. */
    void answered() {
        if (nodeId != null) {
            answered = true;
        }
    }

    /**
     * The nodes whose silence counts from earlier than this leadership's start, for
     * {@link FailoverDecider#decide(ClusterState, Map, Map, Map, long, long, long)}: the predecessor until it
     * answers, then none.
     */
    Map<String, Long> silentFrom() {
        return awaitingAnswer() ? Map.of(nodeId, silentFrom) : Map.of();
    }

    /**
     * Whether {@code peerId} answered the leader whose role is {@code role} since it became leader. Ratis starts
     * each follower's "last response" a whole RPC timeout before the leadership began, so a response time within the
     * leadership's age is a real answer, and any answer, refusals included, shows a live server.
     */
    static boolean answeredThisLeader(RoleInfoProto role, String peerId) {
        return answeredAt(role, 0).containsKey(peerId);
    }

    /**
     * When each follower's Raft server last answered the leader whose role is {@code role} (its clock at
     * {@code nowMillis}), for those that answered since it became leader ({@link #answeredThisLeader}); empty when
     * {@code role} is not a leader's.
     */
    static Map<String, Long> answeredAt(RoleInfoProto role, long nowMillis) {
        if (!role.hasLeaderInfo()) {
            return Map.of();
        }
        Map<String, Long> out = new java.util.HashMap<>();
        for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
            if (f.getLastRpcElapsedTimeMs() < role.getRoleElapsedTimeMs()) {
                out.put(f.getId().getId().toStringUtf8(), nowMillis - f.getLastRpcElapsedTimeMs());
            }
        }
        return out;
    }
}
