package dev.felix.cluster.metadata;

import dev.felix.cluster.ClusterControl;
import dev.felix.cluster.ClusterListener;
import dev.felix.cluster.ClusterView;
import dev.felix.cluster.NodeInfo;
import dev.felix.cluster.ReplicaReporter;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.cluster.tls.ClusterTls;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.cache.CacheConfig;
import dev.felix.core.cache.CacheName;
import dev.felix.core.metadata.CacheRecord;
import dev.felix.core.metadata.Metadata;
import dev.felix.core.metadata.StreamRecord;
import dev.felix.transport.TlsException;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.ClientFactory;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster metadata replicated with Apache Ratis: one node's member of the metadata Raft group, serving the
 * broker's {@link Metadata} (tenants, streams, caches), the node's {@link ClusterView} (members, liveness,
 * placements) and {@link ClusterControl} (hand-off, resume). See the package documentation for the design.
 *
 * <p><b>Threads.</b> Thread-safe. Reads answer from the locally applied state (an immutable value behind a
 * volatile field) and never block. Writes go through Raft and complete their future once the change is
 * committed and applied on this node, on the {@code felix-cluster-callback} thread (do not block it on another
 * metadata future); without a metadata quorum they fail with {@code unavailable} after
 * {@link ClusterSettings#requestTimeout()}. Listeners are called on the {@code felix-cluster-listener} thread,
 * in commit order. Heartbeats and the failover decider run on their own threads.
 *
 * <p><b>Lifecycle.</b> {@link #start} returns once this node is a member and has applied the metadata log up
 * to its own registration (at least the leader's commit index when it joined); {@link #close()} stops
 * heartbeats, the decider, the Raft client and the Raft server. A closed instance refuses writes with
 * {@code unavailable}.
 */
public final class RaftMetadata implements Metadata, ClusterView, ClusterControl {

    private static final Logger LOG = LoggerFactory.getLogger(RaftMetadata.class);

    /** Status reason of a {@code leader}-consistency unit whose leader is lost; clients get exactly this. */
    public static final String LEADER_GONE = FailoverDecider.LEADER_GONE;
    /** Status reason of a {@code quorum} unit whose leader is lost while too few replicas reported. */
    public static final String NO_MAJORITY = FailoverDecider.NO_MAJORITY;
    /**
     * Ratis takes a snapshot automatically every this many applied log entries (and purges the log it covers).
     * Heartbeats never enter the log, so this counts metadata changes (creates, deletes, registrations, liveness
     * and leadership transitions) and the barriers of catch-up rounds (at most one in flight per node).
     */
    public static final long SNAPSHOT_EVERY_ENTRIES = 1024;
    /** Raft election timeout range (a leader unheard for this long is replaced). */
    static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(500);
    static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(1000);
    /** How long one attempt of a Raft client request may take before it is retried. */
    static final Duration CLIENT_ATTEMPT_TIMEOUT = Duration.ofSeconds(1);
    /**
     * How long a newly elected leader waits for its predecessor's Raft server to answer before it counts the
     * predecessor's silence from when it last heard it ({@link PredecessorGrace}); never more than the failure
     * timeout.
     */
    static final Duration PREDECESSOR_ANSWER_WINDOW = ELECTION_TIMEOUT_MIN;
    /** Sleep between retries of the Raft client. */
    static final Duration RETRY_SLEEP = Duration.ofMillis(100);
    /**
     * How long the Raft leader waits between attempts to reach a member it cannot reach
     * ({@code raft.server.log.appender.retry.policy}: sleep, count pairs; each sleep is drawn from 0.5–1.5×).
     * Ratis's default ({@code 1ms,10, 1s,20, 5s,1000}) reaches its 5 s step after about ten seconds of failures,
     * so a member killed and restarted waited up to 7.5 s more for the leader's first append, and then a
     * 5 s step again after any hiccup: 10–15 s from restart to caught up. Capped at 500 ms here, a restarted
     * member hears from the leader within 750 ms of listening. This policy only paces the leader's retries
     * towards one member (an attempt to a frozen member still waits out its request timeout); elections,
     * whose timeouts are above, are unaffected.
     */
    static final String APPENDER_RETRY_POLICY = "1ms,10, 100ms,20, 500ms,2147483647";
    /** Changes a slow listener may fall behind before deliveries are coalesced to the latest state. */
    static final int LISTENER_BACKLOG = 1024;

    private final ClusterSettings settings;
    private final NodeAddresses addresses;
    private final NodeFile node;
    private final ClusterTls tls;
    private final ReplicaReporter reporter;
    private final long incarnation;
    private final RaftGroupId groupId;
    private final RaftPeer self;
    private final Parameters parameters;
    private final Liveness liveness;
    /** Who the failover decider's requests to this node's own Raft server come from ({@link #submitHere}). */
    private final ClientId deciderId = ClientId.randomId();
    private final AtomicLong deciderCalls = new AtomicLong();
    /** Reconnects of this node's Raft clients, by peer, client and thread ({@code felix_raft_client_reconnects_total}). */
    private final ReconnectCounts reconnects = new ReconnectCounts();
    private final MetadataStateMachine stateMachine;
    private final CopyOnWriteArrayList<ClusterListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor(daemon("felix-cluster-listener"));
    private final ChangeNotifier notifier = new ChangeNotifier(listenerThread, this::deliver, LISTENER_BACKLOG);
    private final ExecutorService callbacks = Executors.newSingleThreadExecutor(daemon("felix-cluster-callback"));
    /** The failover decider, acting while this node leads the metadata group. */
    private final FailoverLoop failover;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final MeterRegistry registry;
    private volatile RaftMetrics metrics;
    private volatile RaftServer server;
    private volatile RaftClient client;
    private volatile RaftClient heartbeatClient;
    /** This node's heartbeats to the Raft leader, from its registration on. */
    private volatile HeartbeatSender heartbeats;
    /** The barrier before "not found" ({@link #catchUp()}). */
    private final CatchUp catchUp;
    private RaftMetadata(ClusterSettings settings, NodeAddresses addresses, NodeFile node, ClusterTls tls,
                         ReplicaReporter reporter, MeterRegistry registry) {
        this.settings = settings;
        this.addresses = addresses;
        this.node = node;
        this.tls = tls;
        this.reporter = reporter;
        this.incarnation = new SecureRandom().nextLong() & Long.MAX_VALUE;
        this.groupId = groupId(settings.clusterName());
        // Known to the other members by the address they dial, which a forwarded port makes differ from the bind.
        this.self = RaftPeer.newBuilder().setId(settings.nodeId()).setAddress(node.advertised().toString()).build();
        this.parameters = RaftTls.parameters(tls);
        this.liveness = Liveness.monotonic();
        this.failover = new FailoverLoop(settings, liveness, new FailoverNode());
        // A fenced report may complete a quorum failover's majority: decide now, not at the next round.
        liveness.onNewlyFenced(failover::soon);
        this.stateMachine = new MetadataStateMachine(settings.nodeId(), liveness, this::changed);
        this.registry = registry;
        this.metrics = new RaftMetrics(null, new MetricSource());
        this.catchUp = new CatchUp(this::committedBarrier, stateMachine::awaitApplied, settings.failureTimeout(),
                callbacks, caughtUp -> metrics.caughtUp(caughtUp));
    }

    /** The Raft group id of cluster {@code clusterName}: a name-based UUID, the same on every node. */
    static RaftGroupId groupId(String clusterName) {
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("felix-cluster:" + clusterName)
                .getBytes(StandardCharsets.UTF_8)));
    }

    // ------------------------------------------------------------------ start

    /**
     * Starts this node's member of the metadata group: reads or creates {@code <data>/cluster/node.json}, loads
     * or issues the node's TLS identity, starts the Raft server, then bootstraps a one-node cluster (first start
     * with {@code cluster_bootstrap}), joins through {@code cluster_join} (first start otherwise) or restarts from
     * its Raft storage and latest snapshot. Registers the node (its addresses, a new random incarnation, status
     * up) and returns once it is a member and has applied the log up to its registration.
     *
     * <p>Blocks the caller (never call it on an event loop). Registration needs a metadata quorum: a node of an
     * existing cluster returns only once a majority of the members is up, so when a whole cluster restarts,
     * start its nodes concurrently (separate processes do).
     *
     * @param reporter this node's replica reports, sent with every heartbeat (called on the heartbeat thread)
     * @param registry where {@code felix_raft_*} meters go; null for none
     * @throws FelixException {@code bad_request} for settings that disagree with the data dir or the TLS files
     *         (the message names the setting), {@code already_exists} when another data dir already registered
     *         this node id, {@code unavailable} when no metadata quorum answered within
     *         {@link ClusterSettings#startTimeout()}
     */
    public static RaftMetadata start(ClusterSettings settings, NodeAddresses addresses, ReplicaReporter reporter,
                                     MeterRegistry registry) throws FelixException {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(addresses, "addresses");
        Objects.requireNonNull(reporter, "reporter");
        NodeFile node = NodeFile.loadOrCreate(settings.clusterDir(), settings);
        ClusterTls tls;
        try {
            // The node shows clients the same identity: a certificate it issues itself names where clients
            // reach it too (and localhost, for a node on loopback).
            java.util.List<String> clientNames = new java.util.ArrayList<>(List.of(addresses.client().host()));
            if (isLoopback(addresses.client().host())) {
                clientNames.add("localhost");
            }
            // Other members dial the advertised host, and this node's own clients the bound one (loopback for a
            // wildcard bind; NodeFile.dialledBySelf), so the certificate must name both.
            String advertisedHost = node.advertised().host();
            String selfHost = node.dialledBySelf().host();
            List<String> raftHosts = selfHost.equals(advertisedHost) ? List.of(advertisedHost)
                    : List.of(advertisedHost, selfHost);
            tls = ClusterTls.load(settings.tls(), settings.nodeId(), raftHosts, clientNames,
                    settings.clusterDir().resolve("tls"));
        } catch (TlsException e) {
            throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
        }
        RaftMetadata m = new RaftMetadata(settings, addresses, node, tls, reporter, registry);
        try {
            m.startRaft();
            return m;
        } catch (FelixException e) {
            m.close();
            throw e;
        } catch (IOException | RuntimeException e) {
            m.close();
            throw new FelixException(ErrorCode.UNAVAILABLE, "cluster metadata could not start: " + e);
        }
    }

    /** Whether {@code host} names this machine's loopback interface. */
    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private void startRaft() throws IOException, FelixException {
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        Path raftDir = settings.clusterDir().resolve("raft");
        boolean fresh = !Files.isDirectory(raftDir.resolve(groupId.getUuid().toString()));
        if (fresh && !settings.bootstrap() && settings.join() == null) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "this node has no cluster state in " + raftDir
                    + " yet: start it with " + ClusterSettings.BOOTSTRAP + " (the first node of a new cluster) or "
                    + ClusterSettings.JOIN + " HOST:PORT (the " + ClusterSettings.RAFT_BIND + " of any member)");
        }
        RaftGroup initial = fresh && settings.bootstrap()
                ? RaftGroup.valueOf(groupId, self) : RaftGroup.valueOf(groupId);
        server = RaftServer.newBuilder()
                .setServerId(self.getId())
                .setGroup(initial)
                .setStateMachine(stateMachine)
                .setProperties(serverProperties(raftDir))
                .setParameters(parameters)
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        List<RaftPeer> peers = confPeers();
        boolean member = peers.stream().anyMatch(p -> p.getId().equals(self.getId())
                && p.getAddress().equals(self.getAddress()));
        boolean viaSeed = peers.isEmpty();
        if (viaSeed && settings.join() == null) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "this node's Raft storage in " + raftDir + " holds no"
                    + " membership (it never finished joining): start it with " + ClusterSettings.JOIN
                    + " HOST:PORT");
        }
        RaftGroup clientGroup = viaSeed
                ? RaftGroup.valueOf(groupId, RaftPeer.newBuilder().setId("join-seed")
                        .setAddress(settings.join().toString()).build())
                : RaftGroup.valueOf(groupId, peers);
        client = newClient(clientGroup, writeRetry(), ReconnectCounts.Client.WRITES);
        LOG.info("cluster metadata: node {} ({}), Raft {} at {}{}, {}", settings.nodeId(), tls.subject(),
                groupId, self.getAddress(), node.raftAdvertise() == null ? "" : " (bound at " + node.raftAddress() + ")",
                fresh ? (settings.bootstrap() ? "bootstrapping a new cluster"
                        : "joining through " + settings.join()) : "restarting from " + raftDir);

        if (member && peers.size() == 1) {
            // A one-node group: wait for it to elect itself rather than have the first request bounce.
            awaitCondition(deadline, this::leaderReady, "elect itself leader of its one-node group");
        }
        // Heartbeat from now on, so that the leader hears this node from the moment it is registered.
        heartbeatClient = newClient(clientGroup, new HeartbeatRetry(), ReconnectCounts.Client.HEARTBEATS);
        long hb = settings.heartbeatInterval().toMillis();
        heartbeats = new HeartbeatSender(settings.nodeId(), incarnation, reporter, liveness, new HeartbeatRaftView(),
                new HeartbeatChannel(), new HeartbeatSender.Timing(hb, heartbeatGiveUpMillis(), clientAttemptMillis(),
                        RETRY_SLEEP.toMillis()), () -> metrics.heartbeatTimedOut());
        heartbeats.start();
        if (settings.bootstrap()) {
            await(submit(new Command.InitCluster(settings.clusterName(), new SecureRandom().nextLong()), deadline,
                    member), deadline, "initialise the cluster");
        }
        Committed registered = await(submit(new Command.RegisterNode(settings.nodeId(), node.instanceId(),
                self.getAddress(), addresses.client().toString(), addresses.peer().toString(), incarnation),
                deadline, member), deadline, "register node " + settings.nodeId());
        if (registered.outcome() instanceof Outcome.Refused r) {
            throw r.error().toException();
        }
        if (!member) {
            addSelfToConfiguration(deadline);
        }
        awaitCondition(deadline, () -> confPeers().stream().anyMatch(p -> p.getId().equals(self.getId()))
                && stateMachine.appliedIndex() >= registered.index(), "catch up with the metadata log");
        if (viaSeed) {
            // Clients that know every member, not only the one this node joined through.
            RaftGroup members = RaftGroup.valueOf(groupId, confPeers());
            RaftClient seed = client;
            client = newClient(members, writeRetry(), ReconnectCounts.Client.WRITES);
            closeQuietly(seed);
            RaftClient seedHeartbeats = heartbeatClient;
            heartbeatClient = newClient(members, new HeartbeatRetry(), ReconnectCounts.Client.HEARTBEATS);
            closeQuietly(seedHeartbeats);
        }
        metrics = new RaftMetrics(registry, new MetricSource());
        // Every member's reconnect series from the start, at 0, so that "none" reads as 0 rather than as absent
        // (a node that joins later gets its series with its first reconnect).
        for (RaftPeer p : confPeers()) {
            reconnects.track(p.getId().toString());
        }
        failover.start();
        LOG.info("cluster metadata: node {} is a member of {} ({} nodes, applied index {})", settings.nodeId(),
                settings.clusterName(), stateMachine.state().nodes().size(), stateMachine.appliedIndex());
    }

    /** Asks the Raft leader to add this node to the configuration (a Ratis configuration change, mode ADD). */
    private void addSelfToConfiguration(long deadline) throws FelixException {
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                RaftClientReply reply = client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                        .setServersInNewConf(List.of(self))
                        .setMode(SetConfigurationRequest.Mode.ADD)
                        .build());
                if (reply.isSuccess()) {
                    return;
                }
                last = reply.getException();
            } catch (IOException e) {
                last = e;
            }
            LOG.debug("adding {} to the metadata group failed, retrying: {}", self, String.valueOf(last));
            sleep(RETRY_SLEEP);
        }
        throw new FelixException(ErrorCode.UNAVAILABLE, "could not join the metadata group within "
                + settings.startTimeout().toMillis() + "ms (" + ClusterSettings.START_TIMEOUT + "): " + last);
    }

    private RaftProperties serverProperties(Path raftDir) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
        GrpcConfigKeys.Server.setHost(p, node.raftAddress().host());
        GrpcConfigKeys.Server.setPort(p, node.raftAddress().port());
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, td(ELECTION_TIMEOUT_MIN));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, td(ELECTION_TIMEOUT_MAX));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, td(ELECTION_TIMEOUT_MIN));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, td(ELECTION_TIMEOUT_MAX));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, SNAPSHOT_EVERY_ENTRIES);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, APPENDER_RETRY_POLICY);
        return p;
    }

    private RaftClient newClient(RaftGroup group, RetryPolicy retry, ReconnectCounts.Client kind) {
        group = dialSelfDirectly(group);
        RaftProperties p = new RaftProperties();
        // Short per-attempt timeouts: the first request after a leader change is retried (at the same call id,
        // so the Raft leader's retry cache never applies it twice) instead of waiting out Ratis' 3 s default.
        long attempt = clientAttemptMillis();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(attempt, TimeUnit.MILLISECONDS));
        // The same for the first write of a client: Ratis opens its ordered window with an empty watch request,
        // which gets the watch timeout instead (10 s by default). Sent to a frozen Raft leader (a client starts with
        // a peer it has not heard from), it failed only after 5.3 s, and Ratis then spent 3 s closing the connection
        // (docs/upstream-bugs.md; that close is now off the retry's path, below): every write of this node waited
        // behind it, the failover decider's too, and the first create after the election failed at the 5 s request
        // timeout (DeposedLeaderCatchUpTest). Felix makes no watch requests of its own.
        RaftClientConfigKeys.Rpc.setWatchRequestTimeout(p, TimeDuration.valueOf(attempt, TimeUnit.MILLISECONDS));
        // Reconnects off the failing request's thread, so that a retry to the new leader is not held back while
        // Ratis closes the connection to a frozen one (OffThreadReconnectRpc).
        ClientId id = ClientId.randomId();
        RaftClientRpc rpc = ClientFactory.cast(RaftConfigKeys.Rpc.type(p, LOG::debug).newFactory(parameters))
                .newRaftClientRpc(id, p);
        return RaftClient.newBuilder()
                .setClientId(id)
                .setRaftGroup(group)
                .setProperties(p)
                .setParameters(parameters)
                .setClientRpc(new OffThreadReconnectRpc(rpc, reconnects, kind))
                .setRetryPolicy(retry)
                .build();
    }

    /**
     * {@code group} with this node at the address its own clients dial ({@link NodeFile#dialledBySelf}) instead of
     * the advertised one. A client keeps the address it knows a peer by when replies name the peer again. The client
     * and admin addresses are set too: Ratis' gRPC client dials those when a peer names them, and the address only
     * when it does not.
     */
    private RaftGroup dialSelfDirectly(RaftGroup group) {
        HostPort local = node.dialledBySelf();
        if (local.equals(node.advertised())) {
            return group;
        }
        List<RaftPeer> peers = new ArrayList<>();
        for (RaftPeer p : group.getPeers()) {
            peers.add(p.getId().equals(self.getId())
                    ? RaftPeer.newBuilder(p).setAddress(local.toString()).setClientAddress(local.toString())
                            .setAdminAddress(local.toString()).build()
                    : p);
        }
        return RaftGroup.valueOf(group.getGroupId(), peers);
    }

    /** The Raft clients' per-attempt timeout: 1 s, or the request timeout when that is shorter. */
    private long clientAttemptMillis() {
        return Math.min(CLIENT_ATTEMPT_TIMEOUT.toMillis(), settings.requestTimeout().toMillis());
    }

    /** Retries for writes: spread over the longer of the start and request timeouts, then give up. */
    private RetryPolicy writeRetry() {
        long span = Math.max(settings.startTimeout().toMillis(), settings.requestTimeout().toMillis());
        int attempts = (int) Math.max(1, span / RETRY_SLEEP.toMillis());
        return RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, td(RETRY_SLEEP));
    }

    private boolean leaderReady() {
        try {
            DivisionInfo info = server.getDivision(groupId).getInfo();
            return info.isLeader() && info.isLeaderReady();
        } catch (IOException e) {
            return false;
        }
    }

    private List<RaftPeer> confPeers() {
        try {
            Collection<RaftPeer> peers = server.getDivision(groupId).getRaftConf().getCurrentPeers();
            return List.copyOf(peers);
        } catch (IOException e) {
            return List.of();
        }
    }

    private Committed await(CompletableFuture<Committed> f, long deadline, String what) throws FelixException {
        try {
            return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw startFailure(what, e);
        } catch (ExecutionException e) {
            throw startFailure(what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixException(ErrorCode.UNAVAILABLE, "interrupted while trying to " + what);
        }
    }

    private FelixException startFailure(String what, Throwable cause) {
        Throwable c = unwrap(cause);
        if (c instanceof FelixException f) {
            return f;
        }
        if (c instanceof GroupMismatchException) {
            return new FelixException(ErrorCode.BAD_REQUEST, "the member at " + settings.join() + " belongs to"
                    + " another cluster: check " + ClusterSettings.CLUSTER_NAME + " (this node: '"
                    + settings.clusterName() + "')");
        }
        String refusal = tls.lastRefusal();
        return new FelixException(ErrorCode.UNAVAILABLE, "could not " + what + " within "
                + settings.startTimeout().toMillis() + "ms (" + ClusterSettings.START_TIMEOUT + "): no metadata"
                + " quorum answered" + (settings.join() != null ? " through " + settings.join() : "")
                + (refusal != null ? "; TLS refused " + refusal : "")
                + (c != null && !(c instanceof TimeoutException) ? "; last error: " + c : ""));
    }

    private void awaitCondition(long deadline, java.util.function.BooleanSupplier condition, String what)
            throws FelixException {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw startFailure(what, null);
            }
            sleep(Duration.ofMillis(10));
        }
    }

    // ------------------------------------------------------------------ writes

    /** Submits a command; completes with its outcome once committed and applied here (on the updater thread). */
    private CompletableFuture<Committed> submit(Command command, long deadlineNanos) {
        return submit(command, deadlineNanos, true);
    }

    /** A command's outcome and the log index it was committed at. */
    private record Committed(Outcome outcome, long index) {
    }

    /**
     * Submits a command; completes with its outcome once committed, and applied here if {@code applyHere} (a
     * node that is not a member yet applies nothing until it has joined).
     */
    private CompletableFuture<Committed> submit(Command command, long deadlineNanos, boolean applyHere) {
        RaftClient c = client;
        if (c == null) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.UNAVAILABLE,
                    "cluster metadata is not started"));
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = c.async().send(Message.valueOf(ByteString.copyFrom(Json.encode(command))));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return committed(sent, applyHere, deadlineNanos);
    }

    /** The outcome of a submitted command: once committed, and applied here if {@code applyHere}; by the deadline. */
    private CompletableFuture<Committed> committed(CompletableFuture<RaftClientReply> sent, boolean applyHere,
                                                   long deadlineNanos) {
        return sent.thenCompose(reply -> {
            if (!reply.isSuccess()) {
                throw new CompletionException(reply.getException());
            }
            Committed done = new Committed(Json.decodeOutcome(reply.getMessage().getContent().toByteArray()),
                    reply.getLogIndex());
            return applyHere ? stateMachine.awaitApplied(done.index()).thenApply(v -> done)
                    : CompletableFuture.completedFuture(done);
        }).orTimeout(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Submits a command to this node's own Raft server, and completes with its outcome once committed and applied
     * here; fails if this node does not lead the metadata group (then, or before the entry is committed). For the
     * failover decider, which acts only as leader: its decisions never go through a Raft client, which would first
     * wait out an attempt at the node it last saw leading (a frozen predecessor: 1 s, and failover with it), and
     * which hands a request to whichever node leads, a deposed decider's too (see {@link Command.Decided}).
     */
    private CompletableFuture<Committed> submitHere(Command command, long deadlineNanos) {
        RaftServer s = server;
        if (s == null) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.UNAVAILABLE,
                    "cluster metadata is not started"));
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(deciderId)
                .setServerId(self.getId())
                .setGroupId(groupId)
                .setCallId(deciderCalls.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(Json.encode(command))))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = s.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return committed(sent, true, deadlineNanos);
    }

    /** A write on behalf of a caller: typed result or typed error, completed on the callback thread. */
    private <T> CompletableFuture<T> write(Command command, Class<T> type, String what) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed.get()) {
            result.completeExceptionally(new FelixException(ErrorCode.UNAVAILABLE, "cluster metadata is closed"));
            return result;
        }
        long deadline = System.nanoTime() + settings.requestTimeout().toNanos();
        try {
            submit(command, deadline).whenCompleteAsync((committed, e) -> {
                Outcome o = committed == null ? null : committed.outcome();
                if (e != null) {
                    result.completeExceptionally(writeFailure(what, e));
                } else if (o instanceof Outcome.Refused r) {
                    result.completeExceptionally(r.error().toException());
                } else {
                    Object v = ((Outcome.Done) o).value();
                    result.complete(v == null ? null : type.cast(v));
                }
            }, callbacks);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new FelixException(ErrorCode.UNAVAILABLE, "cluster metadata is closed"));
        }
        return result;
    }

    private FelixException writeFailure(String what, Throwable e) {
        Throwable c = unwrap(e);
        if (c instanceof FelixException f) {
            return f;
        }
        if (c instanceof TimeoutException) {
            return new FelixException(ErrorCode.UNAVAILABLE, "no metadata quorum: " + what + " was not confirmed"
                    + " within " + settings.requestTimeout().toMillis() + "ms (" + ClusterSettings.REQUEST_TIMEOUT
                    + "); it may still be applied later. Members, as last committed: " + membersInWords());
        }
        if (closed.get()) {
            return new FelixException(ErrorCode.UNAVAILABLE, "cluster metadata is closed");
        }
        return new FelixException(ErrorCode.UNAVAILABLE, "metadata write failed: " + what + ": " + c);
    }

    /**
     * The members with their statuses as this node last applied them. Without a quorum nobody can commit a node
     * {@code down}, so nodes that went away with the quorum still show {@code up}: the words say "as last committed".
     */
    private String membersInWords() {
        StringBuilder b = new StringBuilder();
        for (NodeInfo n : nodes()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(n.nodeId()).append(" (").append(n.up() ? "up" : "down").append(')');
        }
        return b.length() == 0 ? "none known" : b.toString();
    }

    /** Whether a request failed because this node's Raft server does not (or no longer) lead. */
    static boolean deposed(Throwable t) {
        return t instanceof NotLeaderException || t instanceof LeaderSteppingDownException
                || t instanceof LeaderNotReadyException;
    }

    static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    // ------------------------------------------------------------------ Metadata

    @Override
    public boolean tenantExists(String tenant) {
        return stateMachine.state().tenants().contains(tenant);
    }

    @Override
    public boolean namespaceExists(String tenant, String namespace) {
        return stateMachine.state().namespaces().contains(tenant + "/" + namespace);
    }

    @Override
    public List<String> tenants() {
        return List.copyOf(stateMachine.state().tenants());
    }

    @Override
    public CompletableFuture<Void> createTenant(String tenant) {
        try {
            StreamName.checkPart("tenant", tenant);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.BAD_REQUEST, e.getMessage()));
        }
        return write(new Command.CreateTenant(tenant), Void.class, "creating tenant '" + tenant + "'");
    }

    /** True: this node applies the metadata log after the node that served a change (see the package doc). */
    @Override
    public boolean readsMayLag() {
        return true;
    }

    @Override
    public CompletableFuture<Void> catchUp() {
        if (closed.get()) {
            return CompletableFuture.completedFuture(null);
        }
        return catchUp.request();
    }

    /**
     * Fault injection for tests: this node stops applying the metadata log until the returned handle is closed, as
     * behind a long pause, while it keeps receiving and acknowledging entries and serving reads from what it had
     * applied. Shows what a lagging node answers ({@link #catchUp()}); never used by the broker itself.
     */
    public AutoCloseable holdApplying() {
        return stateMachine.holdApplying();
    }

    /**
     * Commits a {@link Command.Barrier} and returns its log index: every change committed before this call is below
     * it. A write, not a read of the leader's commit index: a leader deposed without knowing it yet (frozen, or
     * cut off, while the others elected a successor) would answer such a read with its own, older index, but it
     * cannot commit an entry; it steps down when its successor's term reaches it, and the client retries with the
     * leader that can.
     */
    private CompletableFuture<Long> committedBarrier() {
        return submit(new Command.Barrier(), System.nanoTime() + settings.failureTimeout().toNanos(), false)
                .thenApply(Committed::index);
    }

    @Override
    public Optional<StreamRecord> stream(StreamName name) {
        return Optional.ofNullable(stateMachine.state().streams().get(ClusterState.key(name)));
    }

    @Override
    public List<StreamRecord> streams(String tenant, String namespace) {
        return stateMachine.state().streams(tenant, namespace);
    }

    @Override
    public CompletableFuture<StreamRecord> createStream(StreamName name, StreamConfig config) {
        return write(new Command.CreateStream(name, config), StreamRecord.class, "creating stream " + name);
    }

    @Override
    public CompletableFuture<StreamRecord> deleteStream(StreamName name) {
        return write(new Command.DeleteStream(name), StreamRecord.class, "deleting stream " + name);
    }

    @Override
    public Optional<CacheRecord> cache(CacheName name) {
        return Optional.ofNullable(stateMachine.state().caches().get(ClusterState.key(name)));
    }

    @Override
    public List<CacheRecord> caches(String tenant, String namespace) {
        return stateMachine.state().caches(tenant, namespace);
    }

    @Override
    public CompletableFuture<CacheRecord> createCache(CacheName name, CacheConfig config) {
        return write(new Command.CreateCache(name, config), CacheRecord.class, "creating cache " + name);
    }

    @Override
    public CompletableFuture<CacheRecord> deleteCache(CacheName name) {
        return write(new Command.DeleteCache(name), CacheRecord.class, "deleting cache " + name);
    }

    // ------------------------------------------------------------------ ClusterView

    @Override
    public String localNodeId() {
        return settings.nodeId();
    }

    @Override
    public List<NodeInfo> nodes() {
        return stateMachine.state().nodeInfos();
    }

    @Override
    public Optional<NodeInfo> node(String nodeId) {
        return stateMachine.state().node(nodeId);
    }

    @Override
    public Optional<ShardPlacement> placement(ShardKey key) {
        return Optional.ofNullable(stateMachine.state().placements().get(key));
    }

    @Override
    public List<ShardPlacement> placements() {
        return List.copyOf(stateMachine.state().placements().values());
    }

    @Override
    public long version() {
        return stateMachine.state().version();
    }

    @Override
    public void addListener(ClusterListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    // ------------------------------------------------------------------ ClusterControl

    @Override
    public CompletableFuture<ShardPlacement> handOff(ShardKey key, long expectedEpoch, String toNode) {
        return write(new Command.HandOff(key, expectedEpoch, settings.nodeId(), toNode), ShardPlacement.class,
                "handing " + key + " to " + toNode);
    }

    @Override
    public CompletableFuture<ShardPlacement> resumeLeadership(ShardKey key, long expectedEpoch) {
        return write(new Command.ResumeLeadership(key, expectedEpoch, settings.nodeId()), ShardPlacement.class,
                "resuming leadership of " + key);
    }

    // ------------------------------------------------------------------ more for the node

    /** This node's TLS identity and the cluster CA's trust (for the peer replication endpoint). */
    public ClusterTls tls() {
        return tls;
    }

    /**
     * {@code host:port} other nodes dial for this node's Raft endpoint: {@code raft_advertise}, or the bound address
     * (with the port chosen, if {@code raft_bind} said 0).
     */
    public String raftAddress() {
        return self.getAddress();
    }

    /** This node's incarnation: random, new at every start. */
    public long incarnation() {
        return incarnation;
    }

    /**
     * The metadata group as this node sees it.
     *
     * @param leaderId     node id of the Raft leader as known here (null while unknown)
     * @param leader       whether this node is the Raft leader
     * @param term         current Raft term
     * @param commitIndex  highest log index known committed
     * @param appliedIndex highest log index applied here
     * @param members      node ids in the Raft configuration
     */
    public record RaftStatus(String leaderId, boolean leader, long term, long commitIndex, long appliedIndex,
                             List<String> members) {
    }

    public RaftStatus raftStatus() {
        try {
            RaftServer.Division d = server.getDivision(groupId);
            DivisionInfo info = d.getInfo();
            RaftPeerId leaderId = info.getLeaderId();
            List<String> members = new ArrayList<>();
            confPeers().forEach(p -> members.add(p.getId().toString()));
            members.sort(null);
            return new RaftStatus(leaderId == null ? null : leaderId.toString(), info.isLeader(),
                    info.getCurrentTerm(), d.getRaftLog().getLastCommittedIndex(), stateMachine.appliedIndex(),
                    members);
        } catch (IOException | RuntimeException e) {
            return new RaftStatus(null, false, -1, -1, stateMachine.appliedIndex(), List.of());
        }
    }

    /**
     * Writes a snapshot of the metadata now (beside the automatic one every {@value #SNAPSHOT_EVERY_ENTRIES}
     * entries) and returns the log index it covers.
     */
    public long takeSnapshot() throws FelixException {
        try {
            RaftClientReply reply = client.getSnapshotManagementApi(self.getId()).create(true,
                    settings.requestTimeout().toMillis());
            if (!reply.isSuccess()) {
                throw new FelixException(ErrorCode.UNAVAILABLE, "snapshot failed: " + reply.getException());
            }
            return reply.getLogIndex();
        } catch (IOException e) {
            throw new FelixException(ErrorCode.UNAVAILABLE, "snapshot failed: " + e.getMessage());
        }
    }

    /** Index of the snapshot this node loaded at start (or last installed from the leader); -1 if none. */
    long loadedSnapshotIndex() {
        return stateMachine.loadedSnapshotIndex();
    }

    // ------------------------------------------------------------------ listeners

    /** Called by the state machine (updater thread) after each change; hands the state to the listener thread. */
    private void changed(ClusterState state) {
        notifier.offer(state);
    }

    private void deliver(ClusterState s) {
        ClusterView view = new StateView(s);
        for (ClusterListener l : listeners) {
            try {
                l.changed(view, s.version());
            } catch (RuntimeException e) {
                LOG.warn("cluster listener {} failed on version {}", l, s.version(), e);
            }
        }
    }

    /** The cluster as of one applied state (what a listener is given). */
    private final class StateView implements ClusterView {
        private final ClusterState s;

        StateView(ClusterState s) {
            this.s = s;
        }

        @Override
        public String localNodeId() {
            return settings.nodeId();
        }

        @Override
        public List<NodeInfo> nodes() {
            return s.nodeInfos();
        }

        @Override
        public Optional<NodeInfo> node(String nodeId) {
            return s.node(nodeId);
        }

        @Override
        public Optional<ShardPlacement> placement(ShardKey key) {
            return Optional.ofNullable(s.placements().get(key));
        }

        @Override
        public List<ShardPlacement> placements() {
            return List.copyOf(s.placements().values());
        }

        @Override
        public long version() {
            return s.version();
        }

        @Override
        public void addListener(ClusterListener listener) {
            RaftMetadata.this.addListener(listener);
        }
    }

    // ------------------------------------------------------------------ heartbeats and decisions

    @Override
    public void reportNow() {
        HeartbeatSender h = heartbeats;
        if (h != null && !closed.get()) {
            h.reportNow();
        }
    }

    /**
     * For tests: this node sends no more heartbeats while its Raft server runs on, as a node stuck but for Raft would
     * (the Raft leader then declares it down after twice the failure timeout, {@link FailoverDecider}).
     */
    void stopHeartbeating() {
        heartbeats.stop();
    }

    /** {@link HeartbeatSender}'s view of this node's Raft server. */
    private final class HeartbeatRaftView implements HeartbeatSender.RaftView {
        @Override
        public RaftPeer leaderKnownHere() {
            return RaftMetadata.this.leaderKnownHere();
        }

        @Override
        public boolean leadsReady() {
            return leaderReady();
        }

        @Override
        public long leaderHeardAt(RaftPeerId leader) {
            return RaftMetadata.this.leaderHeardAt(leader);
        }
    }

    /** Heartbeats over the heartbeat Raft client, as read-only requests to the leader (they never enter the log). */
    private final class HeartbeatChannel implements HeartbeatSender.Channel {
        @Override
        public CompletableFuture<?> send(Heartbeat beat, RaftPeer leader) {
            RaftClient c = heartbeatClient;
            Message message = Message.valueOf(ByteString.copyFrom(Json.encode(beat)));
            if (leader == null) {
                return answered(c.async().sendReadOnlyUnordered(message));
            }
            // A client knows the peers it was built with and those named in its replies since: the bootstrap node's
            // knows only itself until a reply names the others. Known ones are kept as they are.
            c.getClientRpc().addRaftPeers(List.of(leader));
            return answered(c.async().sendReadOnlyUnordered(message, leader.getId()));
        }

        private CompletableFuture<RaftClientReply> answered(CompletableFuture<RaftClientReply> sent) {
            return sent.thenApply(reply -> {
                if (!reply.isSuccess()) {
                    throw new CompletionException(reply.getException());
                }
                return reply;
            });
        }

        @Override
        public void reconnect(RaftPeerId target, Throwable cause) {
            // The current client: the one that sent the lost heartbeat, but right after a join through the seed,
            // when the members' client has replaced it (and is the one the next heartbeat goes through).
            heartbeatClient.getClientRpc().handleException(target, cause, true);
        }
    }

    /**
     * How long a heartbeat may go unanswered before it is given up: one Raft client attempt (1 s), or the failure
     * timeout when that is shorter. Not shorter: a reconnect ({@link HeartbeatSender}) needs the leader heard well after the send
     * (with a 500 ms give-up, a node of {@code FrozenRaftLeaderLivenessTest} reconnected to the leader frozen 478 ms
     * after its heartbeat was sent). A heartbeat lost that way, the reconnect and the next heartbeat take longer than
     * the failure timeout allows after the last heartbeat heard; the leader gives a node whose Raft server answers it
     * twice the failure timeout ({@link FailoverDecider}).
     */
    private long heartbeatGiveUpMillis() {
        return Math.min(CLIENT_ATTEMPT_TIMEOUT.toMillis(), settings.failureTimeout().toMillis());
    }

    /** When this node's Raft server last heard from {@code leader} while following it, or Long.MIN_VALUE. */
    private long leaderHeardAt(RaftPeerId leader) {
        try {
            RaftServer s = server;
            if (s == null) {
                return Long.MIN_VALUE;
            }
            DivisionInfo info = s.getDivision(groupId).getInfo();
            return leader.equals(info.getLeaderId()) ? leaderHeardAt(info, liveness.nowMillis()) : Long.MIN_VALUE;
        } catch (IOException | RuntimeException e) {
            return Long.MIN_VALUE;
        }
    }

    /**
     * When this node's Raft server, a follower, last heard from the leader it follows (Ratis' time since its last
     * append, taken from {@code now}), or Long.MIN_VALUE when it follows none or Ratis does not say.
     */
    static long leaderHeardAt(DivisionInfo info, long now) {
        var role = info.getRoleInfoProto();
        if (!info.isFollower() || !role.hasFollowerInfo() || !role.getFollowerInfo().hasLeaderInfo()) {
            return Long.MIN_VALUE;
        }
        return now - role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
    }

    /**
     * The leader this node's Raft server knows of (itself included), from its current configuration, or null when it
     * knows none.
     */
    private RaftPeer leaderKnownHere() {
        try {
            RaftServer s = server;
            if (s == null) {
                return null;
            }
            RaftServer.Division d = s.getDivision(groupId);
            RaftPeerId id = d.getInfo().getLeaderId();
            return id == null ? null : d.getRaftConf().getPeer(id);
        } catch (IOException | RuntimeException e) {
            return null; // not (yet) a member of the group
        }
    }

    /** {@link FailoverLoop}'s view of this node: its Raft division, the committed state, its own Raft server. */
    private final class FailoverNode implements FailoverLoop.Node {
        @Override
        public DivisionInfo division() throws IOException {
            RaftServer s = server;
            if (s == null) {
                throw new IOException("the Raft server is not started");
            }
            return s.getDivision(groupId).getInfo();
        }

        @Override
        public ClusterState state() {
            return stateMachine.state();
        }

        @Override
        public CompletableFuture<Outcome> submitHere(Command command, long deadlineNanos) {
            return RaftMetadata.this.submitHere(command, deadlineNanos).thenApply(Committed::outcome);
        }

        @Override
        public RaftMetrics metrics() {
            return metrics;
        }
    }

    // ------------------------------------------------------------------ close

    /** Stops heartbeats and the decider, then the Raft client and server. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        failover.close();
        HeartbeatSender h = heartbeats;
        if (h != null) {
            h.close(); // lets a heartbeat on its way finish before its client closes
        }
        closeQuietly(heartbeatClient);
        closeQuietly(client);
        stateMachine.releaseHold(); // a test that held applying must not make the close wait for ever
        RaftServer s = server;
        if (s != null) {
            try {
                s.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("closing the Raft server failed: {}", e.toString());
            }
        }
        metrics.close();
        listenerThread.shutdown();
        callbacks.shutdown();
        LOG.info("cluster metadata of node {} closed", settings.nodeId());
    }

    private static void closeQuietly(RaftClient c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing a Raft client failed: {}", e.toString());
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private static TimeDuration td(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, n.getAndIncrement() == 0 ? name : name + "-" + n.get());
            t.setDaemon(true);
            return t;
        };
    }

    private final class MetricSource implements RaftMetrics.Source {
        private RaftServer.Division division() throws IOException {
            RaftServer s = server;
            if (s == null) {
                throw new IOException("not started");
            }
            return s.getDivision(groupId);
        }

        @Override
        public boolean leader() {
            try {
                return division().getInfo().isLeader();
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        @Override
        public long term() {
            try {
                return division().getInfo().getCurrentTerm();
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        @Override
        public long commitIndex() {
            try {
                return division().getRaftLog().getLastCommittedIndex();
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        @Override
        public long appliedIndex() {
            return stateMachine.appliedIndex();
        }

        @Override
        public long lastLogIndex() {
            try {
                // next index - 1: right also when a snapshot purged every entry of the log
                return division().getRaftLog().getNextIndex() - 1;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        @Override
        public long snapshotsTaken() {
            return stateMachine.snapshotsTaken();
        }

        @Override
        public long heartbeatsReceived() {
            return liveness.received();
        }

        @Override
        public long heartbeatsStale() {
            return liveness.stale();
        }

        @Override
        public ReconnectCounts reconnects() {
            return reconnects;
        }
    }
}
