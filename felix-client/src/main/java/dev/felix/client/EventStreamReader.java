package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.transport.FrameDecoder;
import dev.felix.wire.BinaryEventBatch;
import dev.felix.wire.BinarySharedEventBatch;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Reads one event stream (opened by the broker for one shard of one subscription): the first frame is
 * {@code event_stream_hello}, which binds it to its subscription; then event batches and gap notices.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined, except {@code attach}, which the subscription calls on that
 * same event loop once the {@code subscribed} reply arrived. Each frame arrives retained from {@code FrameDecoder};
 * the reader releases it after decoding, or holds it (owning it) until the subscription claims the stream and
 * releases it then, or when the stream ends first.
 *
 * <p>Until the subscription claims it, reading is paused and frames already decoded are held, so
 * nothing is lost when the stream arrives before the {@code subscribed} reply. Event-loop confined.
 */
final class EventStreamReader extends ChannelInboundHandlerAdapter {

    private final FelixClient client;
    private QuicStreamChannel channel;
    private Subscription subscription;
    private int shard;
    private boolean helloSeen;
    private final ArrayDeque<ByteBuf> held = new ArrayDeque<>();
    /** Where this stream's events go, once claimed. */
    private ShardFeed feed;
    private boolean paused;
    private boolean ended;
    private long incarnation = -1;

    EventStreamReader(FelixClient client) {
        this.client = client;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
        ctx.fireChannelActive();
    }

    int shard() {
        return shard;
    }

    /** The subscription takes this stream: held frames are processed and reading resumes. */
    void attach(Subscription owner) {
        this.subscription = owner;
        this.feed = new ShardFeed(owner, shard);
        if (incarnation >= 0) {
            owner.incarnation(shard, incarnation);
        }
        ByteBuf frame;
        while ((frame = held.poll()) != null) {
            try {
                process(frame);
            } finally {
                frame.release();
            }
        }
        if (!paused) {
            channel.config().setAutoRead(true);
            channel.read();
        }
        if (!channel.isActive()) {
            finish(null);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            fail("the broker sent a bad frame: " + bad.reason());
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        if (!helloSeen) {
            try {
                hello(frame);
            } finally {
                frame.release();
            }
            return;
        }
        if (subscription == null) {
            held.add(frame);
            return;
        }
        try {
            process(frame);
        } finally {
            frame.release();
        }
    }

    private void hello(ByteBuf frame) {
        try {
            WirePayload p = ClientFrames.decode(frame);
            if (!(p instanceof Message.EventStreamHello hello)) {
                channel.close();
                return;
            }
            helloSeen = true;
            shard = hello.shard() != null ? hello.shard() : 0;
            incarnation = hello.incarnation() != null ? hello.incarnation() : -1;
            channel.config().setAutoRead(false); // until the subscription claims this stream
            client.routeEventStream(hello.subscriptionId(), this);
        } catch (WireException e) {
            channel.close();
        }
    }

    private void process(ByteBuf frame) {
        if (ended) {
            return;
        }
        int flags = ClientFrames.flags(frame);
        try {
            if ((flags & FrameFlags.BINARY_EVENT_BATCH_SHARED) != 0) {
                BinarySharedEventBatch b = WireCodec.decodeSharedEventBatch(flags, ClientFrames.payload(frame));
                deliver(b.baseOffset(), b.payloads());
            } else if ((flags & FrameFlags.BINARY_EVENT_BATCH) != 0) {
                BinaryEventBatch b = WireCodec.decodeEventBatch(flags, ClientFrames.payload(frame));
                deliver(b.baseOffset(), b.payloads());
            } else if (flags == 0) {
                Message m = WireCodec.decodeJson(ClientFrames.payload(frame));
                if (m instanceof Message.Gap gap) {
                    gap(gap.from(), gap.to(), gap.reason());
                } else if (m instanceof Message.ErrorMessage error) {
                    finish(ClientFrames.toException(error));
                    channel.close();
                } else if (m instanceof Message.Event e) {
                    deliver(e.offset(), List.of(e.payload()));
                } else if (m instanceof Message.EventBatch e) {
                    deliver(e.baseOffset(), e.payloads());
                }
            } else {
                fail("unexpected frame flags 0x" + Integer.toHexString(flags) + " on an event stream");
            }
        } catch (WireException e) {
            fail("undecodable frame on an event stream: " + e.getMessage());
        }
    }

    private void deliver(Long baseOffset, List<byte[]> payloads) {
        if (!feed.deliver(baseOffset, payloads)) {
            pause();
        }
    }

    private void gap(long from, long to, String reason) {
        feed.gap(from, to, reason);
    }

    private void pause() {
        if (!paused) {
            paused = true;
            subscription.countReceiveBlocked();
            channel.config().setAutoRead(false);
        }
    }

    /** The receive queue drained to half: read again, and report any local drop right away. */
    void resume() {
        channel.eventLoop().execute(() -> {
            if (feed != null) {
                feed.flushLocalGap();
            }
            if (paused && !ended) {
                paused = false;
                channel.config().setAutoRead(true);
                channel.read();
            }
        });
    }

    /** Stops reading: the broker sees the stream closed and ends the shard subscription. */
    void close() {
        channel.eventLoop().execute(() -> {
            ended = true;
            releaseHeld();
            // STOP_SENDING tells the broker to stop writing; then release the stream locally.
            channel.shutdownInput(0).addListener(f -> channel.close());
        });
    }

    /** Drops a stream no subscription claimed (its subscribe failed or was abandoned). */
    void discard() {
        close();
    }

    private void fail(String message) {
        finish(new FelixClientException(ErrorCode.INTERNAL, message));
        channel.close();
    }

    private void finish(FelixClientException cause) {
        if (ended) {
            return;
        }
        ended = true;
        releaseHeld();
        if (subscription != null) {
            subscription.shardEnded(cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (subscription != null) {
            finish(null);
        }
        // Not claimed yet: keep what was held; attach() delivers it and then ends the shard.
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        finish(new FelixClientException(ErrorCode.CONNECTION_LOST, "event stream failed: " + cause.getMessage(),
                -1, cause));
        ctx.close();
    }

    private void releaseHeld() {
        ByteBuf b;
        while ((b = held.poll()) != null) {
            b.release();
        }
    }
}
