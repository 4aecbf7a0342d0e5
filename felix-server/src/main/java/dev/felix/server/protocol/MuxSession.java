package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;
import dev.felix.transport.CoalescedFlush;
import dev.felix.transport.FrameBatch;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A multiplexed subscription session ({@link Capabilities#SUBSCRIPTION_MUX}): one client-opened stream that
 * carries any number of subscriptions. Each shard of each subscription is a <em>channel</em>, fed from its
 * own core {@link Subscription} queue (where the subscription's queue policy applies), and delivered on this
 * one stream only while the client has granted it credit.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined (the session stream's), except the {@link Channel} listener
 * callbacks, which run on a shard's thread and only queue the channel and schedule a drain. It is given decoded
 * messages, never frames. An event frame it writes is encoded into a pooled direct buffer it allocates from the
 * stream's allocator, or, for a batch larger than a drain copies ({@code Frames#muxEvents}), is its own prefix in front
 * of a retained slice of the batch's shared direct frame; each is handed to {@code write}, after which Netty releases
 * it (also when the write fails). The batches a frame answers were taken off their channels' queues with one share
 * each, given back once the frame is written.
 *
 * <h2>Encode once per connection</h2>
 * Every live subscriber of a shard gets the same {@link EventBatch} instance. A drain pass looks at the head
 * of every ready channel, groups the channels whose head is the same batch, and writes that batch once, as
 * one {@code 0x8024} frame listing all of them: a few prefix bytes of this connection's own in front of the
 * batch's shared encoding. A batch therefore crosses a connection once however many of its subscriptions
 * want it; gaps (per subscription by nature) are written on their own.
 *
 * <h2>No allocation per delivery</h2>
 * A shard's writer wakes every channel of every session it feeds, once per batch (10,000 wakes a message with
 * 10,000 subscribers). A wake pushes the channel itself onto {@link #woken}, a {@link WokenStack} linked through
 * the channels, so it allocates nothing. A drain pass groups channels in lists it keeps from pass to pass for the
 * same reason.
 *
 * <h2>Flow control</h2>
 * Per channel, by credit ({@code mux_subscribe.credit}, then {@code credit} messages): a channel without
 * credit keeps its items queued in the core, whose policy then decides (block the publisher, drop with a
 * gap, catch up from the log). So one slow consumer never holds up the other subscriptions of the stream;
 * the stream itself is written while it is writable.
 */
final class MuxSession extends ChannelInboundHandlerAdapter {

    /**
     * Tests only ({@code MuxGapRaceTest}): wraps the feed of each channel a session opens, so a test can make the
     * shard's writer act between a drain's look at a queue ({@code peek}) and its take ({@code poll}), a window no
     * test can otherwise hit on demand. Null outside tests; read once per channel opened.
     */
    static volatile java.util.function.UnaryOperator<EventFeed> feedWrapperForTests;

    private final StreamSession session;
    private final ServerContext context;
    private final QuicStreamChannel stream;
    private final boolean withShard;
    private final Map<Integer, Channel> channels = new HashMap<>();
    private final Map<Long, List<Channel>> bySubscription = new HashMap<>();
    /** Channels the core woke, from any thread; moved to {@link #ready} on the event loop. */
    private final WokenStack<Channel> woken = new WokenStack<>();
    private final Consumer<Channel> readyIfLive = this::readyIfLive;
    private final ArrayDeque<Channel> ready = new ArrayDeque<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    // Scratch of a drain pass (event loop): batches in first-seen order and the channels wanting each.
    private final IdentityHashMap<EventBatch, ArrayList<Channel>> groups = new IdentityHashMap<>();
    private final ArrayList<EventBatch> order = new ArrayList<>();
    /** Group lists of earlier passes, emptied, kept with their capacity so a pass allocates none. */
    private final ArrayList<ArrayList<Channel>> spareGroups = new ArrayList<>();
    private int[] ids = new int[16];
    /** The queued batches one frame answers, taken off their channels' queues: their shares are given back once written. */
    private final ArrayList<EventBatch> taken = new ArrayList<>();
    private int nextChannel = 1;
    private boolean closed;
    /** One write and flush for the replies queued during a batch of event-loop tasks. */
    private final CoalescedFlush replies;
    /**
     * The event frames of one drain, encoded into shared buffers: the stream sends at least one packet per buffer
     * written to it, so batches that are ready together leave in as few packets as they fill. Written at the end of
     * the drain, and before anything written to the stream directly (a gap), so order is kept.
     */
    private final FrameBatch events;

    MuxSession(StreamSession session) {
        this.session = session;
        this.context = session.context;
        this.stream = session.channel;
        this.withShard = Capabilities.has(session.negotiated(), Capabilities.SHARDS);
        this.replies = new CoalescedFlush(stream);
        // One write per drain however many large frames it holds: this stream ends with its connection or by
        // messages, never by a STOP_SENDING a gathered write would hide (see FrameBatch).
        this.events = FrameBatch.gathering(stream);
        stream.pipeline().addLast(this); // writability changes and the end of the stream
    }

    /** One shard of one subscription: its core queue and its credit. */
    final class Channel extends WokenStack.Node<Channel> implements SubscriptionListener, LiveSubscription {
        final int id;
        final long subscriptionId;
        final EventFeed subscription;
        /** Events the client will still take on this channel. Event loop. */
        long credit;
        /** In {@link #ready}. Event loop. */
        boolean queued;
        /** Had items but no credit; a credit grant makes it ready again. Event loop. */
        boolean starved;
        /**
         * Where the rest of the peeked batch starts when only its head fitted the credit (0: nothing sent of
         * it yet). Event loop.
         */
        long sentUpTo;
        /** The batch at the head of its queue when this pass looked, which it means to take and write. Event loop. */
        EventBatch peeked;
        boolean ended;
        /** Forgotten by the session ({@link #remove}); checked instead of a map look-up. Event loop. */
        boolean removed;

        Channel(int id, long subscriptionId, EventFeed subscription, long credit) {
            this.id = id;
            this.subscriptionId = subscriptionId;
            this.subscription = subscription;
            this.credit = credit;
        }

        @Override
        public void onDeliveryReady() {
            if (woken.push(this)) {
                scheduleDrain();
            }
        }

        @Override
        public void onEnd(FelixError error) {
            stream.eventLoop().execute(() -> ended(this, error));
        }

        @Override
        public long queuedEvents() {
            return subscription.queuedEvents();
        }

        @Override
        public void close() {
            remove(this);
        }
    }

    // ------------------------------------------------------------------ requests (event loop)

    void subscribe(Message.MuxSubscribe m) {
        if (closed) {
            return;
        }
        long credit = Integer.toUnsignedLong(m.credit());
        if (credit == 0) {
            session.reply(FelixError.of(ErrorCode.BAD_REQUEST, "mux_subscribe.credit must be at least 1"),
                    m.requestId());
            return;
        }
        SubscriptionSetup.Spec spec = new SubscriptionSetup.Spec(m.tenantId(), m.namespace(), m.stream(), m.start(),
                m.shard(), m.queuePolicy(), m.queueEvents(), m.queueBytes(), m.incarnation());
        SubscriptionSetup.feeds(session, spec).whenComplete((subscriptions, err) -> stream.eventLoop().execute(() -> {
            if (err != null) {
                session.reply(SubscriptionSetup.failure(err), m.requestId());
            } else if (closed || !stream.isActive()) {
                subscriptions.forEach(EventFeed::close);
            } else {
                started(m.requestId(), subscriptions, credit);
            }
        }));
    }

    private void started(long requestId, List<EventFeed> subscriptions, long credit) {
        long subscriptionId = subscriptions.get(0).id();
        List<Channel> opened = new ArrayList<>(subscriptions.size());
        List<Integer> shards = new ArrayList<>(subscriptions.size());
        List<Integer> ids = new ArrayList<>(subscriptions.size());
        java.util.function.UnaryOperator<EventFeed> wrapper = feedWrapperForTests;
        for (EventFeed s : subscriptions) {
            Channel c = new Channel(nextChannel++, subscriptionId, wrapper == null ? s : wrapper.apply(s), credit);
            channels.put(c.id, c);
            opened.add(c);
            shards.add(s.shard());
            ids.add(c.id);
            context.subscriptions.add(c);
            session.connection.added(c);
            context.metrics.subscriptionsOpened.increment();
        }
        bySubscription.put(subscriptionId, opened);
        // Ephemeral shards name their incarnation, so a client can resume against it later and be told (with
        // an incarnation gap) if the shard's memory was lost in between.
        List<Long> incarnations = null;
        if (Capabilities.has(session.negotiated(), Capabilities.GAP_NOTICES) && !subscriptions.get(0).durable()) {
            incarnations = subscriptions.stream().map(EventFeed::incarnation).toList();
        }
        // The reply goes out before any event: every event write first writes the queued replies (writePending).
        // Queued, not written: a thousand subscribes that arrived together are confirmed in a few full packets,
        // where a write each cost a packet each (and a burst of them waited for the congestion window).
        replies.write(Frames.json(new Message.MuxSubscribed(requestId, subscriptionId, shards, ids, incarnations)));
        for (Channel c : opened) {
            c.subscription.listen(c);
        }
    }

    void credit(Message.Credit m) {
        Channel c = channels.get(m.channel());
        if (c == null) {
            return; // ended meanwhile: credit for it means nothing now
        }
        c.credit += Integer.toUnsignedLong(m.events());
        if (c.starved) {
            c.starved = false;
            enqueue(c);
            drain();
        }
    }

    void unsubscribe(Message.Unsubscribe m) {
        List<Channel> list = bySubscription.get(m.subscriptionId());
        if (list != null) {
            for (Channel c : List.copyOf(list)) {
                remove(c);
            }
        }
    }

    // ------------------------------------------------------------------ delivery (event loop)

    /** Schedules one drain (at most one pending); woken during a client stream's read, also at its end ({@link ReadBurst}). */
    private void scheduleDrain() {
        // Read first: the channels of one session are woken together, and a failed compare-and-set still takes
        // the line from the event loop. A drain clears the flag before it takes the woken channels, so a wake
        // that sees it set is taken by that drain.
        if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
            stream.eventLoop().execute(drainTask);
            ReadBurst.defer(drainTask, stream.eventLoop());
        }
    }

    private void drain() {
        drainScheduled.set(false);
        woken.drain(readyIfLive);
        if (closed) {
            return;
        }
        boolean wrote = false;
        try {
            while (stream.isWritable() && !ready.isEmpty()) {
                wrote |= pass();
            }
        } finally {
            if (wrote) {
                events.write();
                stream.flush();
            }
        }
    }

    private void readyIfLive(Channel c) {
        if (!c.removed) {
            enqueue(c);
        }
    }

    /** Writes {@code batch} once for the first {@code count} channels of {@code ids}, and counts it. */
    private void writeBatch(EventBatch batch, int[] ids, int count) {
        if (replies.hasPending()) { // a channel's events never overtake its mux_subscribed
            events.write();
            replies.writePending();
        }
        Frames.muxEvents(events, batch, ids, count, stream.alloc());
        context.metrics.deliveredEvents.add((long) batch.eventCount() * count);
        context.metrics.muxFrames.increment();
        if (batch.publishNanos() != 0) { // 0: read back from a log. Once per frame: its channels share it.
            context.metrics.fanoutDelay.record(System.nanoTime() - batch.publishNanos(),
                    java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /** One pass over the ready channels: gaps as they come, then each batch once for all who want it. */
    private boolean pass() {
        boolean wrote = false;
        for (int n = ready.size(); n > 0; n--) {
            Channel c = ready.poll();
            c.queued = false;
            if (c.removed) {
                continue;
            }
            Delivery d;
            // A batch seen here is held (its lent memory) until this pass is done with it: drop_old may evict it from
            // the queue before the drain takes it, and the drain reads it first (a head under too little credit).
            while ((d = c.subscription.peekHeld()) instanceof GapNotice) {
                // What poll() returns, which drop_old may have merged with what it evicted since the peek.
                Delivery polled = c.subscription.poll();
                if (polled instanceof GapNotice gap) {
                    writeGap(c, gap);
                    wrote = true;
                } else if (polled instanceof EventBatch taken) {
                    taken.releaseShare(); // unreachable: the head after a gap notice is a gap notice; never leak one
                }
            }
            if (d == null) {
                continue; // the core wakes it again when something arrives
            }
            if (c.credit <= 0) {
                c.starved = true;
                ((EventBatch) d).releaseLent();
                continue;
            }
            EventBatch batch = (EventBatch) d;
            c.peeked = batch;
            if (c.sentUpTo > batch.baseOffset()) {
                batch = batch.from(c.sentUpTo); // the rest of a batch whose head went out under too little credit
            }
            if (batch.eventCount() > c.credit) {
                // The client's window is a promise: send what fits on its own frame, keep the rest queued.
                EventBatch head = batch.first((int) c.credit);
                try {
                    writeBatch(head, new int[] {c.id}, 1);
                } finally {
                    batch.releaseLent();
                }
                c.credit = 0;
                c.sentUpTo = head.endOffset();
                c.starved = true;
                wrote = true;
                continue;
            }
            ArrayList<Channel> group = groups.get(batch);
            if (group == null) {
                group = spareGroups.isEmpty() ? new ArrayList<>(4) : spareGroups.remove(spareGroups.size() - 1);
                groups.put(batch, group);
                order.add(batch);
            }
            group.add(c);
        }
        for (int b = 0; b < order.size(); b++) { // indexed: no iterator per pass
            EventBatch batch = order.get(b);
            ArrayList<Channel> group = groups.get(batch);
            if (ids.length < group.size()) {
                ids = new int[Math.max(group.size(), ids.length * 2)];
            }
            int count = 0;
            for (int i = 0; i < group.size(); i++) {
                Channel c = group.get(i);
                Delivery polled = c.subscription.poll();
                EventBatch peeked = c.peeked;
                c.peeked = null;
                if (polled != peeked) {
                    // drop_old evicted the batch we peeked since (this thread is the only consumer, but the shard's
                    // writer may evict from the head) and queued a gap notice in its place: that goes, not the batch.
                    c.sentUpTo = 0;
                    if (polled instanceof GapNotice gap) {
                        writeGap(c, gap);
                        wrote = true;
                    } else if (polled instanceof EventBatch other) {
                        other.releaseShare(); // the queue was cleared (the channel is leaving) and refilled: drop it
                    }
                    continue;
                }
                taken.add(peeked); // its share is ours until the frame is written
                c.credit -= batch.eventCount();
                c.sentUpTo = 0;
                ids[count++] = c.id;
            }
            try {
                if (count > 0) {
                    writeBatch(batch, ids, count);
                }
            } finally {
                for (int i = 0; i < taken.size(); i++) {
                    taken.get(i).releaseShare();
                }
                taken.clear();
                for (int i = 0; i < group.size(); i++) {
                    batch.releaseLent(); // each channel's hold from its look (the batch, or a view of it)
                }
            }
            for (int i = 0; i < group.size(); i++) {
                enqueue(group.get(i)); // it may hold more; the next pass looks
            }
            group.clear();
            spareGroups.add(group);
            wrote = true;
        }
        groups.clear();
        order.clear();
        return wrote;
    }

    private void enqueue(Channel c) {
        if (!c.queued) {
            c.queued = true;
            ready.add(c);
        }
    }

    private void writeGap(Channel c, GapNotice gap) {
        events.write();
        replies.writePending();
        StreamWrites.writeOwned(stream, Frames.json(new Message.Gap(c.subscriptionId,
                withShard ? Integer.valueOf(gap.shard()) : null, gap.from(), gap.to(), gap.reason().wireName())),
                stream.voidPromise());
        context.metrics.deliveredGaps.increment();
    }

    /** The core ended a channel: what was sendable goes first, then {@code subscription_ended}. */
    private void ended(Channel c, FelixError error) {
        if (c.removed) {
            return;
        }
        c.ended = true;
        drain();
        if (!closed && stream.isActive()) {
            replies.writePending();
            StreamWrites.writeOwned(stream, Frames.json(new Message.SubscriptionEnded(c.id, error.code().code(),
                    error.message())), stream.voidPromise());
            stream.flush();
        }
        remove(c);
    }

    /** Forgets a channel and closes its core subscription; idempotent. */
    private void remove(Channel c) {
        if (channels.remove(c.id) == null) {
            return;
        }
        c.removed = true;
        c.ended = true;
        c.subscription.close();
        context.subscriptions.remove(c);
        session.connection.removed(c);
        List<Channel> siblings = bySubscription.get(c.subscriptionId);
        if (siblings != null) {
            siblings.remove(c);
            if (siblings.isEmpty()) {
                bySubscription.remove(c.subscriptionId);
            }
        }
    }

    // ------------------------------------------------------------------ the stream

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            drain();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close();
        ctx.fireChannelInactive();
    }

    /** The stream is gone: every subscription on it ends. Idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Channel c : List.copyOf(channels.values())) {
            remove(c);
        }
        ready.clear();
        woken.drain(readyIfLive); // unlinks them; every channel is removed, so none is queued
    }
}
