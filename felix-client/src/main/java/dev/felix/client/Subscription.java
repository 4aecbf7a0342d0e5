package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A subscription to a stream (all its shards, or one). Items arrive in offset order per shard:
 * {@link Event}s, and {@link Gap}s for events that will never arrive — loss is never silent.
 *
 * <p><b>Threads and buffers.</b> Take items with {@link #next(Duration)} or iterate from one consumer thread at a
 * time (or let a handler run on the client's handler threads); everything else is thread-safe. Items are filled in
 * from the connection's event loop. Items hold decoded copies: the subscription never owns a {@code ByteBuf}. (An
 * {@link EventViewHandler} may instead read events in place, during its call, from a frame its session owns.)
 *
 * <p>Take items with {@link #next(Duration)} or iterate; one consumer thread at a time. Everything
 * else is thread-safe. When the broker or the connection ends the subscription, queued items are
 * still returned, then {@code next} throws the reason.
 */
public final class Subscription implements AutoCloseable, Iterable<Item> {

    private final FelixClient client;
    private final SubscribeOptions options;
    private final ReceiveQueue queue;
    private final CompletableFuture<Subscription> subscribed = new CompletableFuture<>();
    private final List<EventStreamReader> readers = new CopyOnWriteArrayList<>();
    private final LongAdder events = new LongAdder();
    private final LongAdder gaps = new LongAdder();
    private final LongAdder missed = new LongAdder();
    private final LongAdder localDrops = new LongAdder();
    private final AtomicInteger openShards = new AtomicInteger();
    private volatile long subscriptionId = -1;
    private volatile List<Integer> shards = List.of();
    private volatile FelixClientException endCause;
    private volatile boolean closed;
    private FrameStream control;
    /** Multiplexed: the session that carries it, and its channels by shard. */
    private volatile SessionStream session;
    private final java.util.Map<Integer, MuxChannel> muxChannels = new java.util.concurrent.ConcurrentHashMap<>();
    /** Most events granted to one channel at a time. */
    static final int MAX_CREDIT_WINDOW = 4096;
    /** Incarnation of each shard, from its event stream's hello (ephemeral streams). */
    private final java.util.Map<Integer, Long> incarnations = new java.util.concurrent.ConcurrentHashMap<>();
    /** Consumer thread only: re-read events (and residual gaps) to hand out before the live queue. */
    private final java.util.ArrayDeque<Item> healed = new java.util.ArrayDeque<>();
    private final LongAdder healedEvents = new LongAdder();
    /** Set when the handler is an {@link EventViewHandler}: events may skip the queue while it is empty. */
    private volatile HandlerDispatcher.InPlaceTurn inPlace;

    Subscription(FelixClient client, SubscribeOptions options, ReceivePolicy receivePolicy) {
        this.client = client;
        this.options = options;
        ClientConfig c = client.config();
        this.queue = new ReceiveQueue(c.receiveQueueEvents, c.receiveQueueBytes, receivePolicy, this::resumeReaders,
                client.receiveBudget());
    }

    /**
     * Subscribes: on the client's multiplexed session when the broker speaks it (one request, no new stream),
     * else on a control stream of its own with one event stream per shard. Completes once the broker
     * confirmed.
     */
    CompletableFuture<Subscription> start() {
        if (!client.config().multiplexSubscriptions) {
            return startOnOwnStreams();
        }
        SessionStream session;
        try {
            session = client.session();
        } catch (FelixClientException e) {
            subscribed.completeExceptionally(e);
            return subscribed;
        }
        session.ready().whenComplete((mux, err) -> {
            if (err != null) {
                subscribed.completeExceptionally(err);
            } else if (!mux) {
                startOnOwnStreams();
            } else {
                session.subscribe(this, options).whenComplete((v, e) -> {
                    if (e != null) {
                        subscribed.completeExceptionally(e);
                    }
                });
            }
        });
        return subscribed;
    }

    /** The multiplexed session confirmed this subscription; false if it was closed meanwhile. Event loop. */
    boolean muxStarted(SessionStream session, long id, List<MuxChannel> channels) {
        if (closed) {
            return false;
        }
        this.session = session;
        subscriptionId = id;
        List<Integer> list = new ArrayList<>(channels.size());
        for (MuxChannel c : channels) {
            list.add(c.shard);
            muxChannels.put(c.shard, c);
        }
        shards = List.copyOf(list);
        openShards.set(list.size());
        client.claim(this, id); // the client ends it when it closes or loses the connection
        subscribed.complete(this);
        return true;
    }

    /** Most events granted to each channel of a multiplexed subscription at a time (its credit window). */
    int creditWindow() {
        return Math.max(1, Math.min(client.config().receiveQueueEvents / 2, MAX_CREDIT_WINDOW));
    }

    private CompletableFuture<Subscription> startOnOwnStreams() {
        FrameStream.open(client.connection(), client.config(), new FrameStream.Listener() {
            @Override
            public void onPayload(WirePayload payload) {
                onControl(payload);
            }

            @Override
            public void onClosed(FelixClientException cause) {
                if (!subscribed.isDone()) {
                    subscribed.completeExceptionally(cause != null ? cause : new FelixClientException(
                            ErrorCode.CONNECTION_LOST, "the broker closed the subscribe stream without a reply"));
                }
            }
        }).whenComplete((fs, err) -> {
            if (err != null) {
                subscribed.completeExceptionally(err);
                return;
            }
            control = fs;
            StreamRef s = options.stream();
            fs.write(new Message.Subscribe(s.tenant(), s.namespace(), s.stream(), null, options.start(),
                    options.shard(), options.queuePolicy(), options.queueEvents(), null, options.incarnation()));
            if (!Capabilities.has(fs.negotiated(), Capabilities.SUBSCRIPTION_LIFELINE)) {
                fs.finish(); // an older broker: the subscribe stream carries one request
            }
        });
        return subscribed;
    }

    private void onControl(WirePayload payload) {
        if (payload instanceof Message.Subscribed ok) {
            subscriptionId = ok.subscriptionId();
            List<Integer> list = ok.shards() != null ? ok.shards()
                    : List.of(options.shard() != null ? options.shard() : 0);
            shards = List.copyOf(list);
            openShards.set(list.size());
            client.claim(this, ok.subscriptionId());
            subscribed.complete(this);
        } else if (payload instanceof Message.SubscribeCursorError e) {
            boolean tooOld = e.reason() == dev.felix.wire.CursorErrorReason.TOO_OLD;
            subscribed.completeExceptionally(new FelixClientException(
                    tooOld ? ErrorCode.CURSOR_TOO_OLD : ErrorCode.CURSOR_IN_FUTURE,
                    (tooOld ? "offset " + Long.toUnsignedString(e.requested()) + " is no longer retained; the oldest is "
                            : "offset " + Long.toUnsignedString(e.requested()) + " is past the tail; the next offset is ")
                            + Long.toUnsignedString(e.available()), e.available(), null));
        } else if (payload instanceof Message.ErrorMessage e) {
            subscribed.completeExceptionally(ClientFrames.toException(e));
        }
    }

    /** Called by the client when an event stream of this subscription arrives. */
    void attach(EventStreamReader reader) {
        readers.add(reader);
        reader.attach(this);
    }

    public StreamRef stream() {
        return options.stream();
    }

    /** The broker's id for this subscription. */
    public long id() {
        return subscriptionId;
    }

    /** The shards this subscription reads. */
    public List<Integer> shards() {
        return shards;
    }

    /**
     * The next item, waiting up to {@code timeout}; null if none arrived in time, or after
     * {@link #close()}. Throws the reason once the subscription has ended and every queued item was
     * taken.
     */
    public Item next(Duration timeout) {
        if (closed) {
            return null;
        }
        if (!healed.isEmpty()) {
            return healed.poll();
        }
        if (!timeout.isZero() && !timeout.isNegative()) {
            NonBlockingScope.refuseWait("wait for the next item of a subscription");
        }
        try {
            Item item = queue.poll(InflightBudget.nanos(timeout));
            if (item == null && queue.endedAndEmpty() && !closed) {
                throw endCause != null ? endCause
                        : new FelixClientException(ErrorCode.UNAVAILABLE, "the subscription ended");
            }
            if (item instanceof Event e) {
                taken(e);
            } else if (item instanceof Gap gap && options.healGaps() && healable(gap)) {
                heal(gap.shard(), gap.from(), gap.to(), gap.reason(), true);
                return healed.poll();
            }
            return item;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Multiplexed: the application took an event; its channel's credit flows back in steps. */
    private void taken(Event e) {
        MuxChannel c = muxChannels.get(e.shard());
        if (c != null) {
            long grant = c.consumed();
            if (grant > 0) {
                session.credit(c.id, grant);
            }
        }
    }

    private static boolean healable(Gap gap) {
        return gap.to() != Long.MAX_VALUE && switch (gap.reason()) {
            // relay_lag: a relaying node lost them; the log (or memory) still has them, like an overflow
            case "queue_overflow", "client_queue_overflow", "unannounced", "relay_lag" -> true;
            default -> false; // retention: already gone; incarnation: a different numbering
        };
    }

    /**
     * Re-reads {@code from..to} of {@code shard} on a side subscription and queues what it gets (and a
     * gap for what it cannot) to be handed out before the live queue continues, so order is kept.
     */
    private void heal(int shard, long from, long to, String reason, boolean retryFromOldest) {
        SubscribeOptions side = new SubscribeOptions(options.stream(),
                new dev.felix.wire.StartPosition.AtOffset(from), shard, dev.felix.wire.QueuePolicy.BLOCK, null,
                null, false);
        long next = from;
        // The side subscription never drops on its own: it waits for this consumer (BLOCK).
        try (Subscription s = client.subscribe(side, ReceivePolicy.BLOCK)) {
            while (next <= to) {
                Item it = s.next(client.config().requestTimeout());
                if (it == null) {
                    break;
                }
                if (it instanceof Event e) {
                    if (e.offset() > to) {
                        break;
                    }
                    healed.add(e);
                    healedEvents.increment();
                    client.metrics().healedEvents.increment();
                    next = e.offset() + 1;
                } else {
                    Gap g = (Gap) it;
                    long gFrom = Math.max(g.from(), next);
                    long gTo = Math.min(g.to(), to);
                    if (gFrom <= gTo) {
                        healed.add(new Gap(options.stream(), shard, gFrom, gTo, g.reason()));
                    }
                    next = g.to() + 1;
                }
            }
        } catch (FelixClientException e) {
            if (e.code() == ErrorCode.CURSOR_TOO_OLD && retryFromOldest && e.availableOffset() > from) {
                long oldest = e.availableOffset();
                healed.add(new Gap(options.stream(), shard, from, Math.min(oldest - 1, to), "retention"));
                if (oldest <= to) {
                    heal(shard, oldest, to, reason, false);
                }
                return;
            }
        }
        if (next <= to) {
            healed.add(new Gap(options.stream(), shard, next, to, reason)); // could not be re-read
        }
    }

    /** Items until the subscription ends or is closed; {@code hasNext} blocks. */
    @Override
    public Iterator<Item> iterator() {
        return new Iterator<>() {
            private Item next;

            @Override
            public boolean hasNext() {
                while (next == null) {
                    if (closed) {
                        return false;
                    }
                    try {
                        next = Subscription.this.next(Duration.ofSeconds(1));
                    } catch (FelixClientException e) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public Item next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Item item = next;
                next = null;
                return item;
            }
        };
    }

    /** Whether the subscription has ended (by the broker, the connection, or {@link #close()}). */
    public boolean ended() {
        return closed || openShards.get() <= 0 && subscribed.isDone();
    }

    /** Why the subscription ended, or null. */
    public FelixClientException endCause() {
        return endCause;
    }

    /**
     * The incarnation of {@code shard} as its event stream announced it (changes when an ephemeral shard
     * restarts), or -1 if not known (an older broker, or a durable stream).
     */
    public long incarnation(int shard) {
        return incarnations.getOrDefault(shard, -1L);
    }

    /** Events re-read to heal gaps ({@link SubscribeOptions#healGaps()}). */
    public long healedEvents() {
        return healedEvents.sum();
    }

    /** Events received. */
    public long eventCount() {
        return events.sum();
    }

    /** Gap notices received (from the broker or this client's own receive queue). */
    public long gapCount() {
        return gaps.sum();
    }

    /** Events reported missing by gap notices. */
    public long missedEvents() {
        return missed.sum();
    }

    /** Events this client dropped itself (receive queue full under a drop policy). */
    public long locallyDropped() {
        return localDrops.sum();
    }

    /** Events waiting in the receive queue. */
    public long queued() {
        return queue.size();
    }

    /** Payload bytes waiting in the receive queue (charged to the client's receive budget). */
    public long queuedBytes() {
        return queue.bytes();
    }

    /** Ends the subscription; the broker stops sending. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (control != null) {
            control.finish(); // ends the lifeline: the broker unsubscribes at once
        }
        SessionStream s = session;
        if (s != null) {
            s.unsubscribe(subscriptionId);
        }
        for (EventStreamReader r : readers) {
            r.close();
        }
        client.forget(this);
        queue.close(); // what it held goes back to the client's receive budget
    }

    // ------------------------------------------------------------------ from readers (event loop)

    void countReceiveBlocked() {
        client.metrics().receiveQueueBlocked.increment();
    }

    ReceiveQueue queue() {
        return queue;
    }

    void inPlace(HandlerDispatcher.InPlaceTurn turn) {
        inPlace = turn;
    }

    /** The handler's turn for events read in place, or null when events always go through the queue. */
    HandlerDispatcher.InPlaceTurn inPlace() {
        return inPlace;
    }

    /**
     * Whether anything waits to be handed out: an event or a gap notice in the queue, or a re-read item. Exact for
     * whoever holds (or just held) the handler's turn, the only ones that take items.
     */
    boolean hasPending() {
        return !queue.isEmpty() || !healed.isEmpty();
    }

    /** {@code n} events handed to an {@link EventViewHandler} in place. */
    void countEventsReadInPlace(int n) {
        events.add(n);
        client.metrics().events.add(n);
        client.metrics().eventsReadInPlace.add(n);
    }

    void countEvent() {
        events.increment();
        client.metrics().events.increment();
    }

    void countGap(long missedEvents) {
        gaps.increment();
        client.metrics().gaps.increment();
        if (missedEvents > 0) {
            missed.add(missedEvents); // an incarnation gap's size is unknown
        }
    }

    void incarnation(int shard, long incarnation) {
        incarnations.put(shard, incarnation);
    }

    void countLocalDrops(long n) {
        localDrops.add(n);
        client.metrics().receiveQueueDropped.add(n);
        queue.countDropped(n);
    }

    void shardEnded(FelixClientException cause) {
        if (cause == null) {
            cause = client.closedByBroker(); // the broker closed the connection, with a reason
        } else {
            client.noticed(cause);
        }
        if (cause != null && endCause == null) {
            endCause = cause;
        }
        if (openShards.decrementAndGet() <= 0) {
            queue.end();
            client.forget(this);
        }
    }

    /** The connection is gone: end now. */
    void connectionLost(FelixClientException cause) {
        if (endCause == null) {
            endCause = cause;
        }
        subscribed.completeExceptionally(cause);
        openShards.set(0);
        queue.end();
    }

    /** The receive queue drained to half: paused readers read again, and locally dropped ranges are reported. */
    private void resumeReaders() {
        for (EventStreamReader r : new ArrayList<>(readers)) {
            r.resume();
        }
        SessionStream s = session;
        if (s != null) {
            s.flushLocalGaps(muxChannels.values());
        }
    }
}
