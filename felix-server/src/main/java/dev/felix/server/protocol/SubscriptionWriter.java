package dev.felix.server.protocol;

import dev.felix.core.FelixError;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.SubscriptionListener;
import dev.felix.transport.FrameBatch;
import dev.felix.transport.StreamEnds;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * Writes one shard subscription to its event stream (a broker-opened unidirectional QUIC stream):
 * {@code event_stream_hello}, then event batches and gap notices in order, pulled from the core (see
 * {@link PulledWriter}). Batches are written as the shared, encoded-once frames of the batch (one, unless the batch is
 * over {@link Frames#FRAME_SPLIT_BYTES}); the frames of one drain
 * are copied into one buffer ({@link FrameBatch}), since the stream sends at least one packet per buffer written to
 * it (and would copy each heap frame into a direct buffer anyway). When the client stops reading (or the connection
 * ends) the core subscription is closed.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined except {@link #onDeliveryReady()} and {@link #onEnd}, which
 * the shard's thread calls and which only schedule. A batch whose frames are larger than {@link FrameBatch}'s copy
 * limit is written from its shared direct frames ({@link Frames#sharedFrames}, encoded once for every subscriber): a
 * retained duplicate each, which Netty releases once sent; the drain then gives back the batch's share it took off the
 * queue. A smaller batch's shared heap encoding (encoded once, immutable, owned by the {@code EventBatch}) is copied
 * into the drain's pooled direct buffer.
 */
final class SubscriptionWriter extends PulledWriter implements SubscriptionListener, LiveSubscription {

    private final ServerContext context;
    private final ConnectionHandler connection;
    private final EventFeed subscription;
    private final long subscriptionId;
    private final boolean withOffsets;
    private final boolean withGaps;
    private final boolean withShard;
    private final int negotiated;
    /** One drain's frames, copied into shared buffers: the stream sends at least one packet per buffer written to it. */
    private FrameBatch out;

    SubscriptionWriter(ServerContext context, ConnectionHandler connection, EventFeed subscription,
            long subscriptionId, int negotiated) {
        this.context = context;
        this.connection = connection;
        this.subscription = subscription;
        this.subscriptionId = subscriptionId;
        this.negotiated = negotiated;
        this.withOffsets = Capabilities.has(negotiated, FrameFlags.EVENT_BATCH_OFFSETS);
        this.withGaps = Capabilities.has(negotiated, Capabilities.GAP_NOTICES);
        this.withShard = Capabilities.has(negotiated, Capabilities.SHARDS);
    }

    /** Binds the opened event stream, writes the hello; deliveries start after {@link #start()}. */
    void bind(QuicStreamChannel stream) {
        this.channel = stream;
        this.out = new FrameBatch(stream);
        // Ephemeral shards name their incarnation, so a client can resume against it later and be told
        // (with an incarnation gap) if the shard's memory was lost in between.
        Long incarnation = withGaps && !subscription.durable() ? subscription.incarnation() : null;
        StreamWrites.writeOwned(stream, Frames.json(new Message.EventStreamHello(subscriptionId,
                withShard ? Integer.valueOf(subscription.shard()) : null, incarnation)), stream.voidPromise());
    }

    /** Starts pulling deliveries from the core. */
    void start() {
        context.subscriptions.add(this);
        connection.added(this);
        context.metrics.subscriptionsOpened.increment();
        subscription.listen(this);
        channel.flush();
    }

    @Override
    public long queuedEvents() {
        return subscription.queuedEvents();
    }

    @Override
    public void onDeliveryReady() {
        wake();
    }

    @Override
    public void onEnd(FelixError error) {
        channel.eventLoop().execute(() -> {
            drainNow();
            if (!closed && Capabilities.has(negotiated, Capabilities.ERROR_CODES)) {
                StreamWrites.writeOwned(channel, Frames.json(Frames.error(error, null, negotiated)), channel.voidPromise());
            }
            finish();
        });
    }

    @Override
    protected void drain() {
        int written = 0;
        try {
            while (channel.isWritable()) {
                Delivery d = subscription.poll();
                if (d == null) {
                    break;
                }
                if (d instanceof EventBatch batch) {
                    try {
                        write(batch);
                    } finally {
                        batch.releaseShare(); // taken off the queue: its share was ours
                    }
                    context.metrics.deliveredEvents.add(batch.eventCount());
                    if (batch.publishNanos() != 0) { // 0: read back from a log
                        context.metrics.fanoutDelay.record(System.nanoTime() - batch.publishNanos(),
                                java.util.concurrent.TimeUnit.NANOSECONDS);
                    }
                    written++;
                } else if (d instanceof GapNotice gap && withGaps) {
                    out.add(Frames.json(new Message.Gap(subscriptionId,
                            withShard ? Integer.valueOf(gap.shard()) : null, gap.from(), gap.to(),
                            gap.reason().wireName())), null);
                    context.metrics.deliveredGaps.increment();
                    written++;
                }
            }
        } finally {
            if (written > 0) {
                out.write();
                channel.flush();
            }
        }
    }

    /**
     * Adds the frames of {@code batch} to this drain: retained duplicates of its shared direct frames when it is large
     * enough to share them, else wrappers of its shared heap frames, which the drain copies.
     */
    private void write(EventBatch batch) {
        Frames.SharedFrames shared = Frames.sharedFrames(batch, withOffsets, channel.alloc());
        if (shared != null) {
            for (ByteBuf frame : shared.frames()) {
                out.add(frame.retainedDuplicate(), null);
            }
            return;
        }
        for (byte[] frame : Frames.events(batch, withOffsets)) {
            out.add(Unpooled.wrappedBuffer(frame), null);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // The client stopped reading (STOP_SENDING) or the stream failed: that is an unsubscribe.
        close();
        ctx.close();
    }

    /** Ends the subscription: closes the core side and the stream. Idempotent. */
    @Override
    public void close() {
        if (!release()) {
            return;
        }
        if (channel != null && channel.isActive()) {
            channel.close();
        }
    }

    /** The core ended the subscription: our side of the stream ends after what was written. */
    private void finish() {
        if (release()) {
            StreamEnds.finish(channel); // the last batch went out earlier: nothing to attach the FIN to
        }
    }

    /** Closes the core side and forgets the writer; false if that already happened. */
    private boolean release() {
        if (closed) {
            return false;
        }
        closed = true;
        subscription.close();
        context.subscriptions.remove(this);
        connection.removed(this);
        return true;
    }
}
