package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamName;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.wire.Capabilities;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What a subscribe asks for — a stream, one shard or all, where to start, the broker-side queue — resolved and
 * registered in the core: one core {@link Subscription} per shard, all or none. Shared by the classic
 * {@code subscribe} ({@link SubscribeHandler}) and the multiplexed {@code mux_subscribe} ({@link MuxSession}).
 * Stateless.
 */
final class SubscriptionSetup {
    private SubscriptionSetup() {
    }

    /** The fields {@code subscribe} and {@code mux_subscribe} share. */
    record Spec(String tenantId, String namespace, String stream, dev.felix.wire.StartPosition start, Integer shard,
            dev.felix.wire.QueuePolicy queuePolicy, Integer queueEvents, Long queueBytes, Long incarnation) {
    }

    /**
     * Registers the subscription's shards. Completes (on a shard thread) with one subscription per shard, in
     * shard order, or fails with a {@link FelixException} (nothing stays registered then).
     */
    static CompletableFuture<List<Subscription>> register(StreamSession session, Spec s) {
        ServerContext context = session.context;
        Stream stream;
        List<Integer> shards = new ArrayList<>();
        SubscribeRequest request;
        try {
            StreamName name = Routing.streamName(session.tenant(), s.tenantId(), s.namespace(), s.stream());
            stream = context.broker.stream(name);
            if (s.shard() != null) {
                shards.add(Routing.shardOf(stream, s.shard()).index());
            } else if (stream.shardCount() > 1 && !Capabilities.has(session.negotiated(), Capabilities.SHARDS)) {
                throw new FelixException(ErrorCode.BAD_REQUEST, "stream " + name + " has " + stream.shardCount()
                        + " shards and this client did not negotiate shard support; subscribe to one shard");
            } else {
                for (int i = 0; i < stream.shardCount(); i++) {
                    shards.add(i);
                }
            }
            for (int shard : shards) {
                Routing.checkLeads(context, name, shard);
            }
            request = new SubscribeRequest(start(s.start()), policy(s), limits(context, s),
                    s.incarnation() != null ? s.incarnation() : 0);
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        ConnectionHandler connection = session.connection;
        if (!connection.reserveSubscriptions(shards.size())) {
            return CompletableFuture.failedFuture(FelixError.of(ErrorCode.OVERLOADED, "this connection holds "
                    + ServerContext.MAX_SUBSCRIPTIONS_PER_CONNECTION + " subscriptions already").toException());
        }
        List<CompletableFuture<Subscription>> futures = new ArrayList<>();
        for (int shard : shards) {
            futures.add(stream.shard(shard).subscribe(request));
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, err) -> {
            connection.releaseReservationLater(shards.size());
            List<Subscription> subscriptions = new ArrayList<>();
            FelixError failure = null;
            for (CompletableFuture<Subscription> f : futures) {
                try {
                    subscriptions.add(f.join());
                } catch (CompletionException e) {
                    Throwable cause = e.getCause();
                    failure = cause instanceof FelixException fe ? fe.error()
                            : FelixError.of(ErrorCode.INTERNAL, String.valueOf(cause));
                }
            }
            if (failure != null) {
                subscriptions.forEach(Subscription::close);
                throw new CompletionException(failure.toException());
            }
            return subscriptions;
        });
    }

    /**
     * The feeds of a subscribe, one per shard in shard order: a core subscription for each shard this node leads,
     * and, when this node relays ({@code cluster_relay_subscribe}), a relayed feed for each shard another node leads
     * ({@link RelayedShards#trySubscribe}). All or none; completes as {@link #register} does. A stream this cluster
     * node does not know yet is looked up once it has caught up with the metadata ({@link CatchUpFirst}).
     */
    static CompletableFuture<List<EventFeed>> feeds(StreamSession session, Spec s) {
        CompletableFuture<Void> first;
        try {
            first = CatchUpFirst.stream(session.context,
                    Routing.streamName(session.tenant(), s.tenantId(), s.namespace(), s.stream()));
        } catch (FelixException | RuntimeException e) {
            first = CompletableFuture.completedFuture(null); // a bad name: feedsNow says what is wrong with it
        }
        return first.isDone() ? feedsNow(session, s)
                : first.thenComposeAsync(v -> feedsNow(session, s), session.channel.eventLoop());
    }

    /** {@link #feeds}, with this node's metadata as it is now. */
    private static CompletableFuture<List<EventFeed>> feedsNow(StreamSession session, Spec s) {
        ServerContext context = session.context;
        if (context.relayed == null) {
            return register(session, s).thenApply(l -> l.stream().map(EventFeed::of).toList());
        }
        StreamName name;
        Stream stream;
        List<Integer> shards = new ArrayList<>();
        try {
            name = Routing.streamName(session.tenant(), s.tenantId(), s.namespace(), s.stream());
            stream = context.broker.stream(name);
            if (s.shard() != null) {
                shards.add(Routing.shardOf(stream, s.shard()).index());
            } else {
                for (int i = 0; i < stream.shardCount(); i++) {
                    shards.add(i);
                }
            }
        } catch (FelixException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (shards.stream().noneMatch(shard -> context.relayed.relays(name, shard))) {
            return register(session, s).thenApply(l -> l.stream().map(EventFeed::of).toList()); // the core path alone
        }
        if (shards.size() > 1 && !Capabilities.has(session.negotiated(), Capabilities.SHARDS)) {
            return CompletableFuture.failedFuture(new FelixException(ErrorCode.BAD_REQUEST, "stream " + name + " has "
                    + stream.shardCount() + " shards and this client did not negotiate shard support; subscribe to"
                    + " one shard"));
        }
        List<CompletableFuture<EventFeed>> futures = new ArrayList<>();
        for (int shard : shards) {
            CompletableFuture<EventFeed> relayed = context.relayed.trySubscribe(session, name, stream, shard,
                    s.start(), context.config.subscriberQueue());
            futures.add(relayed != null ? relayed
                    : register(session, withShard(s, shard)).thenApply(l -> EventFeed.of(l.get(0))));
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, err) -> {
            List<EventFeed> out = new ArrayList<>();
            Throwable failure = null;
            for (CompletableFuture<EventFeed> f : futures) {
                try {
                    out.add(f.join());
                } catch (CompletionException e) {
                    failure = e;
                }
            }
            if (failure != null) {
                out.forEach(EventFeed::close);
                throw new CompletionException(failure(failure).toException());
            }
            return out;
        });
    }

    private static Spec withShard(Spec s, int shard) {
        return new Spec(s.tenantId(), s.namespace(), s.stream(), s.start(), shard, s.queuePolicy(), s.queueEvents(),
                s.queueBytes(), s.incarnation());
    }

    /** The core error a failed registration carries. */
    static FelixError failure(Throwable e) {
        Throwable cause = e;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof FelixException fe ? fe.error() : FelixError.of(ErrorCode.INTERNAL, String.valueOf(cause));
    }

    private static StartPosition start(dev.felix.wire.StartPosition start) throws FelixException {
        if (start == null || start instanceof dev.felix.wire.StartPosition.Latest) {
            return StartPosition.LATEST;
        }
        if (start instanceof dev.felix.wire.StartPosition.Earliest) {
            return StartPosition.EARLIEST;
        }
        long offset = RequestFields.u64("start.offset", ((dev.felix.wire.StartPosition.AtOffset) start).offset(),
                0, Long.MAX_VALUE); // offsets are below 2^63
        return StartPosition.at(offset);
    }

    private static QueuePolicy policy(Spec s) throws FelixException {
        if (s.queuePolicy() == null) {
            return null;
        }
        return QueuePolicy.parse(s.queuePolicy().wireName());
    }

    private static QueueLimits limits(ServerContext context, Spec s) throws FelixException {
        QueueLimits max = context.config.subscriberQueue();
        if (s.queueEvents() == null && s.queueBytes() == null) {
            return null;
        }
        // A client may ask for a smaller queue, never a larger one than the broker allows.
        int events = s.queueEvents() == null ? max.events()
                : (int) Math.min(RequestFields.u32("queue_events", s.queueEvents(), 1, Integer.MAX_VALUE), max.events());
        long bytes = s.queueBytes() == null ? max.bytes()
                : Math.min(RequestFields.u64("queue_bytes", s.queueBytes(), 1, Long.MAX_VALUE), max.bytes());
        return new QueueLimits(events, bytes);
    }
}
