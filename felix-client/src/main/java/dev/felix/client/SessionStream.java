package dev.felix.client;

import dev.felix.transport.CoalescedFlush;
import dev.felix.transport.FrameDecoder;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.MuxEventBatchView;
import dev.felix.wire.Capabilities;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The client's multiplexed subscription session ({@link Capabilities#SUBSCRIPTION_MUX}): one stream per
 * connection that carries every subscription made through it. Subscribing is a {@code mux_subscribe} on it
 * (requests are pipelined: many can be in flight, no stream is opened per subscription); events arrive as
 * {@code 0x8024} frames, each one batch for every channel listed, and are handed to each channel's
 * {@link ShardFeed}. Flow control is per channel, by credit ({@link MuxChannel}).
 *
 * <p><b>Threads and buffers.</b> Event-loop confined (the connection's); the package-visible methods hop onto it.
 * Each inbound frame arrives retained from {@code FrameDecoder} and is released right after it is handled: an event
 * batch is read in place ({@link MuxEventBatchView}), its payloads handed to {@link EventViewHandler}s as views of
 * the frame during their call, and copied once for the channels whose events are queued. Outbound requests are new unpooled frames owned by the channel once written.
 */
final class SessionStream extends ChannelInboundHandlerAdapter {

    /** A subscribe waiting for its {@code mux_subscribed}. */
    private record Pending(Subscription subscription, CompletableFuture<Void> done) {
    }

    private final FelixClient client;
    private final ClientConfig config;
    /** Completes once the broker answered {@code auth}: true if it speaks multiplexed subscriptions. */
    private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
    private final Map<Long, Pending> pending = new HashMap<>();
    private final Map<Integer, MuxChannel> channels = new HashMap<>();
    private final Map<Long, List<MuxChannel>> bySubscription = new HashMap<>();
    /** Frame flags of a mux event batch, the only frame read in place. */
    private static final int MUX_EVENT_BATCH_FLAGS =
            FrameFlags.MUX_DELIVERY | FrameFlags.BINARY_EVENT_BATCH_SHARED | FrameFlags.EVENT_BATCH_OFFSETS;
    /** Reused for every event batch frame: where its parts lie in the frame. */
    private final MuxEventBatchView muxBatch = new MuxEventBatchView();
    /** Reused for every event handed to an {@link EventViewHandler} in place. */
    private final EventView eventView = new EventView();
    private QuicStreamChannel channel;
    /** Requests written in one batch of event-loop tasks share one write and flush, see {@link CoalescedFlush}. */
    private CoalescedFlush flush;
    private long nextRequestId = 1;
    private boolean authenticated;
    private FelixClientException ended;

    private SessionStream(FelixClient client) {
        this.client = client;
        this.config = client.config();
    }

    /** Opens the session stream on {@code connection}; see {@link #ready()}. */
    static SessionStream open(FelixClient client, QuicChannel connection) {
        SessionStream s = new SessionStream(client);
        connection.createStream(QuicStreamType.BIDIRECTIONAL, new io.netty.channel.ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                ch.pipeline().addLast(ClientFrames.decoder(s.config.maxFrameBytes), s);
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                s.ready.completeExceptionally(new FelixClientException(ErrorCode.CONNECTION_LOST,
                        "could not open a subscription session stream: " + f.cause().getMessage(), -1, f.cause()));
            }
        });
        return s;
    }

    /** True once authenticated with a broker that speaks multiplexed subscriptions; false if it does not. */
    CompletableFuture<Boolean> ready() {
        return ready;
    }

    /** Whether the session stream has ended (a new one is needed). */
    boolean ended() {
        return ended != null || (ready.isDone() && ready.isCompletedExceptionally());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
        flush = new CoalescedFlush(channel);
        channel.writeAndFlush(ClientFrames.encode(new Message.Auth(config.tenant, config.token, Capabilities.ALL)));
        ctx.fireChannelActive();
    }

    // ------------------------------------------------------------------ requests (any thread)

    /** Sends the subscribe; completes once the broker confirmed (cursor errors fail with the offset). */
    CompletableFuture<Void> subscribe(Subscription subscription, SubscribeOptions o) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (ended != null) {
                done.completeExceptionally(ended);
                return;
            }
            long id = nextRequestId++;
            pending.put(id, new Pending(subscription, done));
            StreamRef s = o.stream();
            int window = subscription.creditWindow();
            // Subscribes made together leave together, in as few packets as they fill.
            flush.write(ClientFrames.encode(new Message.MuxSubscribe(id, s.tenant(), s.namespace(),
                    s.stream(), o.start(), o.shard(), o.queuePolicy(), o.queueEvents(), null, o.incarnation(),
                    window)));
        });
        return done;
    }

    /** Grants {@code events} more to {@code channelId}. */
    void credit(int channelId, long events) {
        channel.eventLoop().execute(() -> {
            if (ended == null && channels.containsKey(channelId)) {
                flush.write(ClientFrames.encode(new Message.Credit(channelId, (int) events)));
            }
        });
    }

    /** Ends a subscription of this session. */
    void unsubscribe(long subscriptionId) {
        channel.eventLoop().execute(() -> {
            List<MuxChannel> list = bySubscription.remove(subscriptionId);
            if (list == null) {
                return;
            }
            for (MuxChannel c : list) {
                channels.remove(c.id);
            }
            if (ended == null && channel.isActive()) {
                flush.write(ClientFrames.encode(new Message.Unsubscribe(subscriptionId)));
            }
        });
    }

    /** Reports the ranges these channels dropped locally (a drop policy) now, not only before the next event. */
    void flushLocalGaps(java.util.Collection<MuxChannel> of) {
        channel.eventLoop().execute(() -> of.forEach(c -> c.feed.flushLocalGap()));
    }

    // ------------------------------------------------------------------ inbound (event loop)

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            end(new FelixClientException(ErrorCode.INTERNAL, "the broker sent a bad frame: " + bad.reason()));
            ctx.close();
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        if (ClientFrames.flags(frame) == MUX_EVENT_BATCH_FLAGS) {
            try {
                muxBatch.wrap(ClientFrames.payload(frame).asReadOnlyBuffer());
                deliver(muxBatch); // reads the frame in place: released only after
            } catch (WireException e) {
                end(new FelixClientException(ErrorCode.INTERNAL, "undecodable frame on the session stream: "
                        + e.getMessage()));
                ctx.close();
            } finally {
                frame.release();
            }
            return;
        }
        WirePayload payload;
        try {
            payload = ClientFrames.decode(frame);
        } catch (WireException e) {
            end(new FelixClientException(ErrorCode.INTERNAL, "undecodable frame on the session stream: "
                    + e.getMessage()));
            ctx.close();
            return;
        } finally {
            frame.release();
        }
        Message m = (Message) payload;
        if (!authenticated) {
            authenticated(m);
            return;
        }
        if (m instanceof Message.MuxSubscribed ok) {
            subscribed(ok);
        } else if (m instanceof Message.Gap gap) {
            List<MuxChannel> list = bySubscription.get(gap.subscriptionId());
            if (list != null) {
                int shard = gap.shard() != null ? gap.shard() : 0;
                for (MuxChannel c : list) {
                    if (c.shard == shard) {
                        c.feed.gap(gap.from(), gap.to(), gap.reason());
                    }
                }
            }
        } else if (m instanceof Message.SubscriptionEnded e) {
            MuxChannel c = channels.remove(e.channel());
            if (c != null) {
                List<MuxChannel> siblings = bySubscription.get(c.subscription.id());
                if (siblings != null) {
                    siblings.remove(c);
                }
                c.subscription.shardEnded(ClientFrames.toException(e));
            }
        } else if (m instanceof Message.ErrorMessage e) {
            Pending p = e.requestId() == null ? null : pending.remove(e.requestId());
            FelixClientException cause = ClientFrames.toException(e);
            if (p != null) {
                p.done.completeExceptionally(cause);
            } else {
                end(cause); // an error for the stream itself: it ends
            }
        }
    }

    private void authenticated(Message m) {
        if (m instanceof Message.AuthOk ok) {
            authenticated = true;
            ready.complete(Capabilities.has(Capabilities.negotiate(Capabilities.ALL, ok.serverFlags()),
                    Capabilities.SUBSCRIPTION_MUX));
        } else if (m instanceof Message.Ok) {
            authenticated = true;
            ready.complete(false); // a broker that predates capability negotiation
        } else if (m instanceof Message.ErrorMessage e) {
            end(ClientFrames.toException(e));
        } else {
            end(new FelixClientException(ErrorCode.INTERNAL, "unexpected reply to auth: " + m));
        }
    }

    private void subscribed(Message.MuxSubscribed ok) {
        Pending p = pending.remove(ok.requestId());
        if (p == null) {
            return; // abandoned (timed out): the subscription is ended at once
        }
        Subscription s = p.subscription;
        List<MuxChannel> list = new ArrayList<>(ok.channels().size());
        for (int i = 0; i < ok.channels().size(); i++) {
            MuxChannel c = new MuxChannel(ok.channels().get(i), ok.shards().get(i), s, s.creditWindow());
            channels.put(c.id, c);
            list.add(c);
            if (ok.incarnations() != null) {
                s.incarnation(c.shard, ok.incarnations().get(i));
            }
        }
        bySubscription.put(ok.subscriptionId(), list);
        if (!s.muxStarted(this, ok.subscriptionId(), list)) {
            unsubscribe(ok.subscriptionId()); // closed while it was being set up
        }
        p.done.complete(null);
    }

    /**
     * One batch for the channels it names. A channel whose handler reads in place ({@link EventViewHandler}) gets it
     * straight from the frame when nothing waits before it; the others get copies, made once for all of them.
     */
    private void deliver(MuxEventBatchView batch) {
        boolean needsFlush = false;
        List<byte[]> copies = null;
        int n = batch.eventCount();
        for (int k = 0; k < batch.channelCount(); k++) {
            MuxChannel c = channels.get(batch.channel(k));
            if (c != null) {
                long grant;
                if (c.feed.deliverInPlace(batch, eventView)) {
                    grant = c.tookInPlace(n);
                } else {
                    if (copies == null) {
                        copies = batch.copyPayloads();
                    }
                    c.feed.deliver(batch.baseOffset(), copies);
                    grant = c.arrived(n);
                }
                if (grant > 0) { // the grants of one batch (one per channel) share one buffer: a packet, not one each
                    flush.write(ClientFrames.encode(new Message.Credit(c.id, (int) grant)));
                    needsFlush = true;
                }
            }
        }
        if (needsFlush) { // now, not after the queued tasks: a starved channel waits for its credit
            flush.writePending();
            channel.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end(new FelixClientException(ErrorCode.CONNECTION_LOST, "the subscription session stream ended"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end(new FelixClientException(ErrorCode.CONNECTION_LOST, "subscription session stream failed: "
                + cause.getMessage(), -1, cause));
        ctx.close();
    }

    /** The session is over: pending subscribes fail and every subscription on it ends with {@code cause}. */
    void end(FelixClientException cause) {
        if (ended != null) {
            return;
        }
        ended = cause;
        if (!ready.isDone()) {
            ready.completeExceptionally(cause);
        }
        for (Pending p : List.copyOf(pending.values())) {
            p.done.completeExceptionally(cause);
        }
        pending.clear();
        for (List<MuxChannel> list : List.copyOf(bySubscription.values())) {
            for (MuxChannel c : list) {
                c.subscription.shardEnded(cause);
            }
        }
        bySubscription.clear();
        channels.clear();
        client.sessionEnded(this);
    }
}
