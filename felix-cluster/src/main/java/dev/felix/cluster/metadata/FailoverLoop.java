package dev.felix.cluster.metadata;

import dev.felix.cluster.ShardPlacement;
import dev.felix.core.ErrorCode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.server.DivisionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failover decider's thread: a round every half heartbeat interval (at least 10 ms), and one soon after a replica
 * reports itself newly fenced ({@link #soon}). A round acts only while this node's Raft server is the ready leader of
 * the metadata group: it takes {@link FailoverDecider}'s decisions from the committed state, what this leader heard
 * ({@link Liveness}) and the time, and submits each to this node's own Raft server under its term ({@link
 * Command.Decided}), never through a client: a decision is committed by the leader that made it or not at all.
 *
 * <p><b>What a round keeps</b> from one to the next: the term of this leadership and when it began (every node gets a
 * full failure timeout of grace from then); when each node's current incarnation was first seen; the leader this node
 * followed before it led, and when it last heard it ({@link PredecessorGrace}); the pauses of this process ({@link
 * DeciderPauses}); and the nodes left up for their Raft answers alone ({@link SparedNodes}).
 *
 * <p><b>Threads.</b> Everything but {@link #soon} and {@link #close} runs on {@code felix-cluster-decider}, whose
 * state it is.
 */
final class FailoverLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverLoop.class);

    /** What the loop needs of its node. */
    interface Node {
        /** This node's Raft division. */
        DivisionInfo division() throws IOException;

        /** The committed cluster state, as applied here. */
        ClusterState state();

        /** Submits {@code command} to this node's own Raft server; its outcome once committed and applied here. */
        CompletableFuture<Outcome> submitHere(Command command, long deadlineNanos);

        /** Where decisions, deposed rounds and the like are counted. */
        RaftMetrics metrics();
    }

    private final ClusterSettings settings;
    private final Liveness liveness;
    private final Node node;
    private final ScheduledExecutorService thread =
            Executors.newSingleThreadScheduledExecutor(RaftMetadata.daemon("felix-cluster-decider"));
    private final AtomicBoolean closed = new AtomicBoolean();
    /** A {@link #soon} round is queued on the decider thread. */
    private final AtomicBoolean decideQueued = new AtomicBoolean();
    /** The term of this node's current leadership (-1: not leading). */
    private long leaderTerm = -1;
    /** When this leadership began. */
    private long leaderSince;
    /** Per node, the incarnation last seen in the state and when this node first saw it. */
    private final HashMap<String, long[]> incarnationSeen = new HashMap<>();
    /** The Raft leader this node last followed, and when it last heard from it. */
    private String followedLeader;
    private long followedLeaderHeardAt;
    /** The Raft leader this leadership replaced, and its grace. */
    private PredecessorGrace predecessor = PredecessorGrace.none();
    /** The nodes the last round left up for their Raft answers alone. */
    private final SparedNodes spared = new SparedNodes();
    /** Pauses of this process, across which no silence is counted. */
    private final DeciderPauses pauses;

    FailoverLoop(ClusterSettings settings, Liveness liveness, Node node) {
        this.settings = settings;
        this.liveness = liveness;
        this.node = node;
        // Half the failure timeout, and never less than two heartbeat intervals (four decider ticks), so that the
        // jitter of a loaded machine under the smallest settings is not taken for a pause.
        this.pauses = new DeciderPauses(Math.max(settings.failureTimeout().toMillis() / 2,
                2 * settings.heartbeatInterval().toMillis()));
    }

    /** Rounds from now on, every half heartbeat interval. */
    void start() {
        long tick = Math.max(10, settings.heartbeatInterval().toMillis() / 2);
        thread.scheduleWithFixedDelay(this::decide, tick, tick, TimeUnit.MILLISECONDS);
    }

    /** Runs a round soon, besides the periodic ones (coalesced). Any thread. */
    void soon() {
        if (!closed.get() && decideQueued.compareAndSet(false, true)) {
            try {
                thread.execute(() -> {
                    decideQueued.set(false);
                    decide();
                });
            } catch (RejectedExecutionException e) {
                decideQueued.set(false); // closing
            }
        }
    }

    /** One round of the failover decider; acts only while this node is the Raft leader. */
    private void decide() {
        if (closed.get()) {
            return;
        }
        long paused = pauses.roundStarts(liveness.nowMillis());
        if (paused > 0) {
            LOG.info("the failover decider did not run for {}ms (this process was paused or starved of CPU): every"
                    + " node's silence counts from now, not from before the pause", paused);
        }
        try {
            decideRound();
        } finally {
            pauses.roundEnds(liveness.nowMillis());
        }
    }

    private void decideRound() {
        try {
            DivisionInfo info = node.division();
            ClusterState state = node.state();
            long now = liveness.nowMillis();
            // Noted while following too, so that a new leader does not take "first seen" to be its first round.
            for (ClusterState.Member m : state.nodes().values()) {
                long[] seen = incarnationSeen.get(m.info().nodeId());
                if (seen == null || seen[0] != m.info().incarnation()) {
                    incarnationSeen.put(m.info().nodeId(), new long[] {m.info().incarnation(), now});
                }
            }
            if (!info.isLeader() || !info.isLeaderReady()) {
                leaderTerm = -1;
                spared.reset();
                noteFollowedLeader(info, now);
                return;
            }
            long term = info.getCurrentTerm();
            if (term != leaderTerm) {
                leaderTerm = term;
                leaderSince = now;
                spared.reset(); // a new leadership counts every silence afresh
                // Every node gets a full failure timeout of grace to find this leader with its heartbeats, except
                // the leader this node followed until the election: it heartbeated to itself, so its silence is
                // known from this node's last contact with it (PredecessorGrace). Without this, losing the Raft
                // leader's node cost an election plus a whole extra failure timeout before its shards failed over.
                long failureTimeout = settings.failureTimeout().toMillis();
                predecessor = followedLeader == null || followedLeader.equals(settings.nodeId())
                        ? PredecessorGrace.none()
                        : PredecessorGrace.atElection(followedLeader, followedLeaderHeardAt, now, failureTimeout,
                                Math.min(failureTimeout, RaftMetadata.PREDECESSOR_ANSWER_WINDOW.toMillis()));
                LOG.info("leading the metadata group at term {}: every node has {}ms of grace to heartbeat{}", term,
                        failureTimeout, predecessor.nodeId() == null ? ""
                                : " (the previous leader " + followedLeader + " was last heard "
                                        + (now - followedLeaderHeardAt) + "ms ago: it has "
                                        + (predecessor.silentFrom().get(followedLeader) + failureTimeout - now)
                                        + "ms unless it answers this leader)");
                // Used up: a later election this node wins names a leader it followed after this one, or none.
                followedLeader = null;
            }
            if (predecessor.awaitingAnswer()
                    && PredecessorGrace.answeredThisLeader(info.getRoleInfoProto(), predecessor.nodeId())) {
                predecessor.answered();
                node.metrics().predecessorAnswered();
                LOG.info("the previous leader {} answered this leader {}ms after this node saw its election: it is"
                        + " alive, and has the grace of every node", predecessor.nodeId(),
                        now - leaderSince);
            }
            Map<String, Long> registered = new HashMap<>();
            incarnationSeen.forEach((id, seen) -> registered.put(id, seen[1]));
            FailoverDecider.Round round = FailoverDecider.decideRound(state, liveness.snapshot(),
                    registered, PredecessorGrace.answeredAt(info.getRoleInfoProto(), now), predecessor, pauses, now,
                    leaderSince, settings.failureTimeout().toMillis());
            noteSpared(round.spared());
            for (FailoverDecider.Decision d : round.decisions()) {
                if (closed.get()) {
                    return;
                }
                // To this node's own server, fenced by this term: a decision is committed by the leader that made
                // it or not at all (Command.Decided).
                Outcome o;
                try {
                    o = node.submitHere(new Command.Decided(term, d.command()),
                            System.nanoTime() + settings.requestTimeout().toNanos())
                            .get(settings.requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!RaftMetadata.deposed(RaftMetadata.unwrap(e))) {
                        throw e;
                    }
                    o = Outcome.refused(ErrorCode.NOT_LEADER, String.valueOf(RaftMetadata.unwrap(e)));
                }
                if (o instanceof Outcome.Done done) {
                    node.metrics().decided(d.kind());
                    LOG.info("failover decision committed: {} {}", d.kind(), describe(d.command(), done.value()));
                } else if (((Outcome.Refused) o).error().code() == ErrorCode.NOT_LEADER) {
                    // This node stopped leading before the decision was committed. Its successor may still commit
                    // the entry, if it reached a majority in this node's term; nothing else of this round is sent.
                    node.metrics().deposed();
                    LOG.info("failover decision {} {} not known to be committed, and this round's others dropped:"
                            + " this node no longer leads ({})", d.kind(), describe(d.command(), null),
                            ((Outcome.Refused) o).error().message());
                    return;
                } else {
                    LOG.debug("failover decision {} refused: {}", d.command(), ((Outcome.Refused) o).error());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (!closed.get()) {
                LOG.debug("failover decider round failed: {}", String.valueOf(RaftMetadata.unwrap(e)));
            }
        }
    }

    /**
     * Counts and logs each node a round newly leaves up for its Raft answers alone: once per silence, however many
     * rounds it lasts ({@code felix_raft_node_down_deferrals_total}).
     */
    private void noteSpared(Set<String> now) {
        for (String id : spared.round(now)) {
            node.metrics().downDeferred();
            long timeout = settings.failureTimeout().toMillis();
            LOG.info("node {} has not heartbeated for the failure timeout ({}ms), but its Raft server answered this"
                    + " leader within the last {}ms: it runs, so it is declared down only after {}ms of silence"
                    + " unless it heartbeats again", id, timeout, FailoverDecider.raftAnswerWindow(timeout),
                    2 * timeout);
        }
    }

    /** While following: which node leads the metadata group, and when this node last heard from it. */
    private void noteFollowedLeader(DivisionInfo info, long now) {
        if (!info.isFollower() || info.getLeaderId() == null) {
            return; // a candidate keeps what it noted while following
        }
        long heardAt = RaftMetadata.leaderHeardAt(info, now);
        followedLeader = info.getLeaderId().toString();
        followedLeaderHeardAt = heardAt == Long.MIN_VALUE ? now : heardAt;
    }

    private static String describe(Command c, Object value) {
        if (c instanceof Command.SetNodeStatus s) {
            return "node " + s.nodeId() + " is " + s.status();
        }
        if (value instanceof ShardPlacement p) {
            return p.name() + " " + p.key() + ": leader " + p.leader() + ", epoch " + p.epoch() + ", " + p.status()
                    + (p.reason() != null ? " (" + p.reason() + ")" : "");
        }
        return c.toString();
    }

    /** Stops the rounds, and waits up to 5 s for one under way. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
