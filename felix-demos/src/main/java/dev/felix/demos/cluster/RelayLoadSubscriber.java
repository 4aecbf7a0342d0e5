package dev.felix.demos.cluster;

import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.StartPosition;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One subscriber of {@code felix demo cluster-relay-load}: a thread, a connection of its own ({@link RelaySource}: the
 * SDK, or a {@link PlainSubscriber}) to the node it was placed on, and its {@link SubscriberLedger}. Slowed, its
 * handler sleeps {@link #SLOW_MICROS_PER_EVENT} per event.
 *
 * <p>When its subscription ends ({@code resync}, or {@code unavailable} when a relay's upstream ends) it subscribes
 * again from the ledger's next offset after a full-jitter pause: on the node it was on; if that node answers
 * {@code not_leader}, on the leader the error names (or the cluster status shows); a {@code cursor_too_old} refusal
 * is announced loss up to the oldest offset held, then it tries again at once. It counts where each resubscribe
 * went.
 *
 * <p><b>Threads.</b> Its own thread runs it; the counters, {@link #next()} and {@link #stop} from any thread; the
 * ledger is read by the run once the thread has ended.
 */
final class RelayLoadSubscriber implements Runnable {

    /** How long a slowed subscriber's handler sleeps per event: it takes at most about 500 events a second. */
    static final long SLOW_MICROS_PER_EVENT = 2_000;
    /** Events the SDK buffers per subscription (its mux credit window is half): a stalled one is felt soon. */
    static final int RECEIVE_QUEUE_EVENTS = 64;
    /** Full jitter: attempt n waits uniformly in [0, min(cap, base * 2^n)]. */
    static final long BACKOFF_BASE_MILLIS = 50;
    static final long BACKOFF_CAP_MILLIS = 2_000;
    private static final Duration GIVE_UP = Duration.ofSeconds(60);

    /** What a subscriber needs of the run. */
    interface Run {
        LocalCluster cluster();

        /** The first offset of {@code stream} the subscriber is owed (the warm-up's); waits until it is known. */
        long start(StreamRef stream);

        /** The last offset published to {@code stream}, or {@link Long#MAX_VALUE} while publishing goes on. */
        long lastOffset(StreamRef stream);

        /** A client configuration for {@code broker} buffering {@code receiveEvents} per subscription. */
        ClientConfig.Builder config(InetSocketAddress broker, int receiveEvents);
    }

    final String name;
    final StreamRef stream;
    final boolean onLeader;
    final boolean plain;
    final boolean slowed;
    final Thread thread;
    final AtomicInteger resubscribedRelayed = new AtomicInteger();
    final AtomicInteger resubscribedLeader = new AtomicInteger();
    /** Why the first subscribe failed, or null. */
    final AtomicReference<String> failure = new AtomicReference<>();
    private final Run run;
    private final String firstNode;
    private final Random jitter;
    private final CountDownLatch confirmed;
    /** Where each resync close and each resubscribe stood: the run's rows count them by offset, like deliveries. */
    private final List<Long> resyncOffsets = new CopyOnWriteArrayList<>();
    private final List<Long> reconnectOffsets = new CopyOnWriteArrayList<>();
    private volatile SubscriberLedger ledger;
    private volatile boolean stopping;
    private volatile boolean abort;

    RelayLoadSubscriber(Run run, int index, StreamRef stream, String node, boolean onLeader, boolean plain,
            boolean slowed, Random jitter, CountDownLatch confirmed) {
        this.run = run;
        this.name = "s" + index;
        this.stream = stream;
        this.firstNode = node;
        this.onLeader = onLeader;
        this.plain = plain;
        this.slowed = slowed;
        this.jitter = jitter;
        this.confirmed = confirmed;
        this.thread = new Thread(this, "relay-load-" + name);
        this.thread.setDaemon(true);
    }

    /** Its ledger, or null before the warm-up offset was known. */
    SubscriberLedger ledger() {
        return ledger;
    }

    /** The first offset it has not accounted for, or -1 before it started. */
    long next() {
        SubscriberLedger l = ledger;
        return l == null ? -1 : l.next();
    }

    long resyncsIn(long from, long to) {
        return resyncOffsets.stream().filter(o -> o >= from && o <= to).count();
    }

    long reconnectsIn(long from, long to) {
        return reconnectOffsets.stream().filter(o -> o >= from && o <= to).count();
    }

    /** Stop once the stream's last offset is accounted for ({@code now}: at once). */
    void stop(boolean now) {
        stopping = true;
        abort |= now;
    }

    @Override
    public void run() {
        LocalCluster cluster = run.cluster();
        RelaySource source;
        try {
            source = open(cluster.node(firstNode).clientAddress(), new StartPosition.Latest());
        } catch (RuntimeException e) {
            failure.set(String.valueOf(e.getMessage()));
            confirmed.countDown();
            return;
        }
        confirmed.countDown();
        InetSocketAddress home = cluster.node(firstNode).clientAddress();
        try {
            ledger = new SubscriberLedger(name, run.start(stream));
            while (!abort && !(stopping && ledger.next() > run.lastOffset(stream))) {
                RelaySource.Got got = source.next(Duration.ofMillis(200));
                if (got instanceof RelaySource.Got.Events e) {
                    ledger.events(e.base(), e.count());
                    if (slowed) {
                        TimeUnit.MICROSECONDS.sleep(SLOW_MICROS_PER_EVENT * e.count()); // the slow handler
                    }
                } else if (got instanceof RelaySource.Got.GapNotice g) {
                    ledger.gap(g.from(), g.to(), g.reason());
                } else if (got instanceof RelaySource.Got.End end) {
                    FelixClientException cause = end.cause();
                    if (cause.code() == ErrorCode.RESYNC) {
                        ledger.resync(cause.availableOffset());
                        resyncOffsets.add(cause.availableOffset());
                    } else if (cause.code() != ErrorCode.UNAVAILABLE) {
                        ledger.violation("the subscription ended with " + cause.getMessage());
                    }
                    source.close();
                    source = null;
                    Reopened r = reopen(home);
                    if (r == null) {
                        return;
                    }
                    source = r.source;
                    home = r.address;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            SubscriberLedger l = ledger;
            if (l != null) {
                l.violation("failed: " + e);
            }
        } finally {
            if (source != null) {
                source.close();
            }
        }
    }

    private record Reopened(RelaySource source, InetSocketAddress address) {
    }

    /** Subscribes again from the ledger's next offset; null if it gave up (counted as a violation). */
    private Reopened reopen(InetSocketAddress home) throws InterruptedException {
        reconnectOffsets.add(ledger.next());
        InetSocketAddress target = home;
        long giveUp = System.nanoTime() + GIVE_UP.toNanos();
        for (int attempt = 0; !abort && System.nanoTime() < giveUp; attempt++) {
            long ceiling = Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS << Math.min(attempt, 10));
            Thread.sleep((long) (jitter.nextDouble() * ceiling)); // the backoff itself, not a wait for a condition
            long from = ledger.next();
            try {
                RelaySource s = open(target, new StartPosition.AtOffset(from));
                (isLeader(target) ? resubscribedLeader : resubscribedRelayed).incrementAndGet();
                return new Reopened(s, target);
            } catch (FelixClientException e) {
                if (e.code() == ErrorCode.NOT_LEADER) {
                    target = e.leader() != null ? address(e.leader().addr()) : leaderAddress();
                    attempt = -1; // a redirect is not a failure: go there at once
                } else if (e.code() == ErrorCode.CURSOR_TOO_OLD) {
                    ledger.tooOld(e.availableOffset());
                    attempt = -1;
                } else if (e.code() == ErrorCode.CURSOR_IN_FUTURE) {
                    ledger.violation("resubscribing from " + from + " was refused as past the tail");
                    return null;
                }
                // unavailable, timeout, connection lost: back off and try again
            }
        }
        if (!abort) {
            ledger.violation("could not subscribe again within " + GIVE_UP.toSeconds() + " s");
        }
        return null;
    }

    private boolean isLeader(InetSocketAddress a) {
        try {
            return a.equals(leaderAddress());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private InetSocketAddress leaderAddress() {
        LocalCluster cluster = run.cluster();
        String leader = cluster.shard(cluster.nodes().get(0).id(), stream.toString(), 0).leader();
        return cluster.node(leader).clientAddress();
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    private RelaySource open(InetSocketAddress broker, StartPosition from) {
        if (plain) {
            return RelaySource.plain(PlainSubscriber.open(broker, run.cluster().caCertificate(), stream.tenant(),
                    stream.namespace(), stream.stream(), from, Duration.ofSeconds(15)));
        }
        FelixClient client = FelixClient.connect(run.config(broker, RECEIVE_QUEUE_EVENTS).build());
        try {
            return RelaySource.sdk(client, client.subscribe(SubscribeOptions.of(stream).from(from)));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%-4s %-9s on %s (%s)%s%s", name,
                stream.equals(ClusterRelayLoadRun.DURABLE) ? "durable" : "ephemeral", firstNode,
                onLeader ? "leader" : "relayed", plain ? ", plain" : ", gap notices", slowed ? ", slowed" : "");
    }
}
