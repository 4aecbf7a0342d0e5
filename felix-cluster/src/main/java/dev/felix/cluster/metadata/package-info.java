/**
 * Cluster metadata on Apache Ratis: one Raft group over all nodes holds membership and liveness, tenants,
 * namespaces, streams and caches (each with a uid), and the placement, leader and epoch of every replicated
 * unit. {@link dev.felix.cluster.metadata.RaftMetadata} is the entry point; it implements the broker's
 * {@link dev.felix.core.metadata.Metadata}, the node's {@link dev.felix.cluster.ClusterView} and
 * {@link dev.felix.cluster.ClusterControl}.
 *
 * <h2>State machine</h2>
 * The state is one immutable value ({@code ClusterState}) that the Ratis updater thread replaces after each
 * committed entry; readers on any thread read a volatile field and never lock. Every entry is a {@code Command}
 * record (a sealed interface) in JSON; {@code ClusterState.apply} is a pure function
 * {@code (state, command, index) -> (state', outcome)}: no clock, no randomness, no I/O, so every node reaches
 * the same state from the same log, and it is unit-tested without Raft. Commands are requests that
 * {@code apply} may refuse (a stale epoch, an unknown node, a duplicate node id); a refusal changes nothing,
 * everywhere. Uids come from the log index mixed with a cluster seed (deterministic, unique).
 *
 * <h2>Heartbeats stay out of the log</h2>
 * Every node sends a heartbeat (its id, incarnation and {@link dev.felix.cluster.ReplicaReport}s) every
 * {@code cluster_heartbeat_ms} as a Ratis <em>read-only query</em> ({@code RaftClient.async()
 * .sendReadOnlyUnordered}). Ratis serves a read-only request from the leader's state machine
 * ({@code StateMachine.query}) without appending anything to the log. It is addressed to the leader this node's own
 * Raft server follows, when it knows one (a follower learns of a new leader from its first append, sooner than a
 * client does); otherwise the client routes it, and a follower that
 * receives it answers {@code NotLeaderException} naming the leader, where the client retries. The leader's state
 * machine records the heartbeat in memory ({@code Liveness}). Rejected alternatives: writing heartbeats as log
 * entries would grow the log and every node's apply work with time rather than with change (principle 7: replica
 * progress stays out of Raft); a separate RPC endpoint would need its own port, TLS and leader discovery, all of
 * which the Ratis client already has.
 *
 * <h2>Catching up before "not found"</h2>
 * A create returns once the node that served it has applied it; the other nodes apply it from the log a moment
 * later. So before a node answers that a stream or cache does not exist, it catches up
 * ({@code RaftMetadata.catchUp()}, {@code CatchUp}): it commits a barrier ({@code Command.Barrier}, an entry that
 * changes nothing) through the Raft leader and waits until it has applied that far. A write, not a read of the
 * leader's commit index: a leader deposed without knowing it yet could answer a read from its older log, but
 * cannot commit. Rounds are coalesced (one barrier in flight; late callers join the next round), bounded by
 * {@code cluster_failure_timeout_ms}, and never fail: without a commit the node answers from what it has.
 *
 * <h2>Liveness and failover</h2>
 * Every node heartbeats to the Raft leader ({@code HeartbeatSender}); the leader's failover decider runs on its own
 * thread ({@code FailoverLoop}). Only the Raft leader decides ({@code FailoverDecider}, a pure function of the
 * committed state, the heartbeats it received and its clock): a node silent for {@code cluster_failure_timeout_ms} goes {@code DOWN} (a new leader
 * first grants every node a full timeout of grace; the Raft leader it replaced, only once that one answers it:
 * {@code PredecessorGrace}), a {@code DOWN} node heard again goes {@code UP}; units whose
 * leader is down are moved (no log), promoted (quorum, once fenced reports of a majority of the replica set are
 * in: the highest {@code (lastEpoch, logEnd)}, ties by lowest node id) or marked unavailable (quorum without such
 * a majority; leader consistency always: {@value dev.felix.cluster.metadata.RaftMetadata#LEADER_GONE}). Every
 * transition is a compare-and-set committed through Raft (on the node's incarnation, on the unit's epoch), so a
 * decision made from a stale view of the committed state is refused, never applied. What a leader heard is not in
 * that state: a leader paused until it was replaced has heard no one for the length of the pause. So the decider
 * submits to its own Raft server only, and a decision carries the term it was made in ({@code Command.Decided}) and
 * is applied only from a log entry of that term: a deposed leader's decisions are never committed.
 *
 * <h2>Bootstrap, join, restart</h2>
 * {@code <data>/cluster/node.json} keeps the node id, a per-data-dir instance id, the cluster name and the Raft
 * address (a port chosen once if {@code raft_bind} said 0). The first start with {@code cluster_bootstrap} forms
 * a one-node group; with {@code cluster_join HOST:PORT} the node starts an empty Raft server, registers itself
 * through the given member (a {@code RegisterNode} command, refused when another data dir holds the node id),
 * then asks the Raft leader through the Ratis admin API to add it (configuration change, mode ADD) and waits
 * until it has caught up. A restart recovers the group from {@code <data>/cluster/raft/} (latest snapshot plus
 * the log after it) and registers again with a new incarnation.
 *
 * <h2>Files under {@code <data>/cluster/}</h2>
 * <pre>
 * node.json                         who this data dir is (see above)
 * tls/node.pem, tls/node.key        this node's certificate, when it issues its own (cluster_ca_key)
 * raft/&lt;group uuid&gt;/current/       Ratis log segments and raft-meta
 * raft/&lt;group uuid&gt;/sm/            snapshots: snapshot.&lt;term&gt;_&lt;index&gt; (JSON) and .md5
 * </pre>
 * Snapshots are taken automatically every {@value dev.felix.cluster.metadata.RaftMetadata#SNAPSHOT_EVERY_ENTRIES}
 * applied entries, when a node stops, or on demand ({@code RaftMetadata.takeSnapshot()}); the two newest are kept
 * and closed log segments a snapshot covers are purged.
 *
 * <h2>Transport</h2>
 * Raft RPC runs on ratis-grpc with mutual TLS 1.3 against the cluster CA ({@code RaftTls},
 * {@link dev.felix.cluster.tls.ClusterTls}); a peer with a certificate from another CA is refused and the
 * refusing side logs its address and the certificate's subject. A node's Ratis clients (one for writes, one for
 * heartbeats) give each attempt 1 s, watch requests included, and reconnect to a peer that timed out off the
 * failed request's thread ({@code OffThreadReconnectRpc}): Ratis 3.3.0 waits up to 3 s closing a connection to a
 * frozen peer, and the retry to the new leader would wait with it (docs/cluster.md, "A frozen Raft leader and the
 * first write").
 */
package dev.felix.cluster.metadata;
