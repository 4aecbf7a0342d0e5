package dev.felix.cluster.metadata;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The {@code felix_raft_*} meters of one node (Prometheus names; Micrometer names use dots):
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code felix_raft_leader}</td><td>gauge</td><td>1 while this node leads the metadata group, else
 *       0</td></tr>
 *   <tr><td>{@code felix_raft_term}</td><td>gauge</td><td>this node's current Raft term</td></tr>
 *   <tr><td>{@code felix_raft_commit_index}</td><td>gauge</td><td>highest metadata log index known committed</td></tr>
 *   <tr><td>{@code felix_raft_applied_index}</td><td>gauge</td><td>highest metadata log index applied here</td></tr>
 *   <tr><td>{@code felix_raft_log_entries_appended_total}</td><td>counter</td><td>entries appended to this node's
 *       metadata log since it started (growth of its last log index)</td></tr>
 *   <tr><td>{@code felix_raft_snapshots_total}</td><td>counter</td><td>metadata snapshots written by this
 *       node</td></tr>
 *   <tr><td>{@code felix_raft_heartbeats_received_total}</td><td>counter</td><td>node heartbeats this node received
 *       as Raft leader</td></tr>
 *   <tr><td>{@code felix_raft_heartbeats_stale_total}</td><td>counter</td><td>of those, heartbeats dropped because a
 *       later one of the same node and incarnation had already been recorded (a retried or delayed heartbeat;
 *       {@link Liveness})</td></tr>
 *   <tr><td>{@code felix_raft_heartbeats_timed_out_total}</td><td>counter</td><td>heartbeats this node sent that
 *       got no answer within one attempt (1 s at most; a frozen or overloaded leader), the last attempt when retried;
 *       not retried after a timeout, and the next goes to whichever leader this node follows by then
 *       ({@link HeartbeatRetry})</td></tr>
 *   <tr><td>{@code felix_raft_client_reconnects_total{client,peer,thread}}</td><td>counter</td><td>reconnects of
 *       this node's Raft clients to {@code peer} after a failed attempt (a closed connection, a timeout of a write, a
 *       heartbeat's connection that stopped answering), by client ({@code writes}, {@code heartbeats}) and thread:
 *       {@code pool}, made on a
 *       thread of their own while the request went on to another peer, or {@code caller}, made on the failing
 *       request's thread because {@link OffThreadReconnectRpc#MAX_CLOSING} were already closing</td></tr>
 *   <tr><td>{@code felix_raft_node_status_changes_total{status}}</td><td>counter</td><td>liveness transitions
 *       ({@code up}, {@code down}) this node decided and committed as Raft leader</td></tr>
 *   <tr><td>{@code felix_raft_node_down_deferrals_total}</td><td>counter</td><td>nodes this node, as Raft leader,
 *       left up past the failure timeout of silence because their Raft server answered it lately (its process runs;
 *       a heartbeat connection that stopped answering is reconnected): once per silence; such a node is declared down
 *       after twice the failure timeout unless it heartbeats again ({@link FailoverDecider})</td></tr>
 *   <tr><td>{@code felix_raft_decisions_deposed_total}</td><td>counter</td><td>failover decisions (status
 *       changes included) this node made as Raft leader that failed because it no longer led by the time they
 *       reached the log: its own server refused them or stepped down before committing them (the successor may
 *       still commit one that reached a majority in this node's term), or the log refused them
 *       ({@link Command.Decided})</td></tr>
 *   <tr><td>{@code felix_raft_predecessor_answers_total}</td><td>counter</td><td>elections this node won in which
 *       the Raft leader it replaced then answered it, also after it was declared down: alive, so from then on it has
 *       the full failure timeout of grace instead of its silence counted from before the election
 *       ({@link PredecessorGrace})</td></tr>
 *   <tr><td>{@code felix_raft_catch_ups_total{outcome}}</td><td>counter</td><td>rounds in which this node committed
 *   a barrier through the metadata leader and waited to apply up to it, before answering {@code not_found}
 *   ({@code caught_up}, or {@code gave_up}: no leader or no majority, or committing and applying took longer than
 *   {@code cluster_failure_timeout_ms})</td></tr>
 *   <tr><td>{@code felix_raft_failover_decisions_total{outcome}}</td><td>counter</td><td>failover decisions this
 *       node committed as Raft leader: {@code promoted} (a quorum replica took over), {@code moved} (a unit
 *       without a log moved to another node), {@code unavailable} (a unit was marked unavailable)</td></tr>
 * </table>
 *
 * <p><b>Threads.</b> Counters are thread-safe; gauges read volatile state. {@link #close()} removes every
 * meter (a node restarted in the same process registers afresh).
 */
final class RaftMetrics implements AutoCloseable {

    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final EnumMap<FailoverDecider.Kind, Counter> decisions = new EnumMap<>(FailoverDecider.Kind.class);
    private Counter deposed;
    private Counter predecessorAnswers;
    private Counter heartbeatsTimedOut;
    private Counter downDeferrals;
    private boolean closed;
    private Counter catchUpsDone;
    private Counter catchUpsGivenUp;

    /** Sources the gauges read. */
    interface Source {
        boolean leader();

        long term();

        long commitIndex();

        long appliedIndex();

        long lastLogIndex();

        long snapshotsTaken();

        long heartbeatsReceived();

        /** Heartbeats dropped as late ({@link Liveness#stale()}). */
        long heartbeatsStale();

        /** Reconnects of this node's Raft clients, by peer, client and thread ({@link ReconnectCounts}). */
        ReconnectCounts reconnects();
    }

    /** The objects the function counters read (see the constructor). */
    private LongSupplier appendedCount;
    private Source counted;

    RaftMetrics(MeterRegistry registry, Source source) {
        this.registry = registry;
        if (registry == null) {
            return;
        }
        gauge("felix.raft.leader", "1 while this node leads the metadata Raft group", source, s -> s.leader() ? 1 : 0);
        gauge("felix.raft.term", "current Raft term of the metadata group", source, s -> s.term());
        gauge("felix.raft.commit.index", "highest metadata log index known committed", source, s -> s.commitIndex());
        gauge("felix.raft.applied.index", "highest metadata log index applied here", source, s -> s.appliedIndex());
        long startIndex = Math.max(0, source.lastLogIndex());
        AtomicLong most = new AtomicLong();
        // monotonic, as a counter must be: a failed read (-1) or a truncated log never makes it go back
        LongSupplier appended = () -> most.accumulateAndGet(source.lastLogIndex() - startIndex, Math::max);
        // Micrometer holds a function counter's object weakly: these fields hold them as long as the metrics live
        // (a collected one reads 0 — it made RaftMetadataClusterTest flaky).
        this.appendedCount = appended;
        this.counted = source;
        meters.add(FunctionCounter.builder("felix.raft.log.entries.appended", appended, LongSupplier::getAsLong)
                .description("entries appended to this node's metadata log since it started").register(registry));
        meters.add(FunctionCounter.builder("felix.raft.snapshots", source, Source::snapshotsTaken)
                .description("metadata snapshots written by this node").register(registry));
        meters.add(FunctionCounter.builder("felix.raft.heartbeats.received", source, Source::heartbeatsReceived)
                .description("node heartbeats received as Raft leader").register(registry));
        meters.add(FunctionCounter.builder("felix.raft.heartbeats.stale", source, Source::heartbeatsStale)
                .description("heartbeats dropped because a later one of the same node and incarnation was recorded"
                        + " first").register(registry));
        deposed = Counter.builder("felix.raft.decisions.deposed")
                .description("failover decisions this node made as Raft leader that failed because it no longer led"
                        + " by the time they reached the log")
                .register(registry);
        meters.add(deposed);
        predecessorAnswers = Counter.builder("felix.raft.predecessor.answers")
                .description("elections this node won in which the Raft leader it replaced then answered it")
                .register(registry);
        meters.add(predecessorAnswers);
        heartbeatsTimedOut = Counter.builder("felix.raft.heartbeats.timed.out")
                .description("heartbeats this node sent that the Raft leader did not answer within one attempt")
                .register(registry);
        meters.add(heartbeatsTimedOut);
        downDeferrals = Counter.builder("felix.raft.node.down.deferrals")
                .description("nodes left up past the failure timeout of silence because their Raft server answered"
                        + " this leader lately")
                .register(registry);
        meters.add(downDeferrals);
        catchUpsDone = catchUps(registry, "caught_up");
        catchUpsGivenUp = catchUps(registry, "gave_up");
        for (FailoverDecider.Kind k : FailoverDecider.Kind.values()) {
            Counter c;
            switch (k) {
                case NODE_DOWN:
                case NODE_UP:
                    c = Counter.builder("felix.raft.node.status.changes")
                            .tag("status", k == FailoverDecider.Kind.NODE_UP ? "up" : "down")
                            .description("liveness transitions committed by this node as Raft leader")
                            .register(registry);
                    break;
                default:
                    c = Counter.builder("felix.raft.failover.decisions")
                            .tag("outcome", k.name().toLowerCase(java.util.Locale.ROOT))
                            .description("failover decisions committed by this node as Raft leader")
                            .register(registry);
                    break;
            }
            meters.add(c);
            decisions.put(k, c);
        }
        // A series per peer, client and thread, registered when the first such reconnect is made (peers come and go). Last,
        // so that a reconnect thread registering one finds every field set.
        source.reconnects().onNewSeries(this::registerReconnects);
    }

    /** Counts a failover decision that failed because this node no longer led ({@link Command.Decided}). */
    void deposed() {
        if (registry != null) {
            deposed.increment();
        }
    }

    /** Counts a predecessor that answered this node after it replaced it as Raft leader ({@link PredecessorGrace}). */
    void predecessorAnswered() {
        if (registry != null) {
            predecessorAnswers.increment();
        }
    }

    /** Counts a heartbeat of this node given up because its attempt timed out ({@link HeartbeatRetry}). */
    void heartbeatTimedOut() {
        if (registry != null) {
            heartbeatsTimedOut.increment();
        }
    }

    /** Counts a node left up past the failure timeout for its Raft answers ({@link FailoverDecider.Round#spared}). */
    void downDeferred() {
        if (registry != null) {
            downDeferrals.increment();
        }
    }

    /** Counts a catch-up round before a {@code not_found} ({@link CatchUp}): caught up, or gave up. */
    void caughtUp(boolean caughtUp) {
        if (registry == null) {
            return;
        }
        (caughtUp ? catchUpsDone : catchUpsGivenUp).increment();
    }

    private void gauge(String name, String description, Source source, ToDoubleFunction<Source> f) {
        meters.add(Gauge.builder(name, source, f).description(description).strongReference(true).register(registry));
    }

    private Counter catchUps(MeterRegistry r, String outcome) {
        Counter c = Counter.builder("felix.raft.catch.ups").tag("outcome", outcome)
                .description("rounds in which this node caught up with the metadata leader before answering"
                        + " not_found").register(r);
        meters.add(c);
        return c;
    }

    /** Counts a committed decision of the failover decider. */
    void decided(FailoverDecider.Kind kind) {
        Counter c = decisions.get(kind);
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (registry != null) {
            meters.forEach(registry::remove);
        }
        meters.clear();
    }

    /** Registers the series of reconnects {@code key} counts (any thread; a second call for one key is harmless). */
    private synchronized void registerReconnects(ReconnectCounts.Key key) {
        if (closed) {
            return; // a later RaftMetrics (a restarted node) registers its own
        }
        ReconnectCounts counts = counted.reconnects();
        meters.add(FunctionCounter.builder("felix.raft.client.reconnects", counts, c -> c.count(key))
                .tag("client", key.client().label())
                .tag("peer", key.peer())
                .tag("thread", key.ranOn().label())
                .description("reconnects of this node's Raft clients to a peer, by client and by the thread that made them")
                .register(registry));
    }
}
