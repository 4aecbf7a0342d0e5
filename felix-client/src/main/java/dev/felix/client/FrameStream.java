package dev.felix.client;

import dev.felix.transport.FrameBatch;
import dev.felix.transport.FrameDecoder;
import dev.felix.transport.StreamEnds;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.Capabilities;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A client-opened bidirectional stream speaking Felix frames: it sends {@code auth} (asking for every
 * capability this SDK knows), completes {@link #ready()} on {@code auth_ok}, then hands every decoded
 * frame to its {@link Listener}. Runs on the connection's event loop.
 *
 * <p><b>Threads and buffers.</b> Inbound callbacks run on the connection's event loop; {@code write},
 * {@code finish} and {@code close} may be called from any thread (see below). A frame passed to {@code write}
 * belongs to this stream from then on (queued, then the channel's). Each inbound frame arrives retained from
 * {@code FrameDecoder} and is released here right after decoding, so the listener only ever sees decoded
 * copies.
 *
 * <p><b>Coalesced flushes.</b> {@link #write} may be called from any thread. It queues the frame and, unless a
 * flush is already pending, schedules one task on the event loop that writes every queued frame and flushes
 * once. A lone write is flushed by the next event-loop task (no timer, so no added latency at low rates);
 * writes made while that task is pending join it, and are copied into one buffer ({@link FrameBatch}), so at
 * high rates QUIC packs them into full packets instead of sending one packet per publish. Order is kept: frames leave in the
 * order they were queued, and {@link #finish}/{@link #close} run after everything queued before them.
 */
final class FrameStream extends ChannelInboundHandlerAdapter {

    /** Receives what arrives after authentication; called on the event loop. */
    interface Listener {
        void onPayload(WirePayload payload);

        /** The stream ended; {@code cause} is null for a clean end. Called once. */
        void onClosed(FelixClientException cause);
    }

    private final ClientConfig config;
    private final Listener listener;
    private final CompletableFuture<FrameStream> ready = new CompletableFuture<>();
    private QuicStreamChannel channel;
    private int negotiated = FrameFlags.ORIGINAL_V1;
    private boolean authenticated;
    private boolean ended;
    /** This client finished or closed the stream itself. */
    private volatile boolean closedHere;

    /** A frame queued by {@link #write} and the promise its writer holds; the frame is owned by the queue. */
    private record Outgoing(ByteBuf frame, ChannelPromise promise) {
    }

    private final Queue<Outgoing> outbox = new ConcurrentLinkedQueue<>();
    /** Whether a {@link #drain} task is scheduled and has not started yet. */
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Merges the frames of one drain; event loop only, created on the first drain that has several. */
    private FrameBatch batch;
    /** Frames written through {@link #write}, and the flushes that carried them (tests compare the two). */
    final LongAdder framesWritten = new LongAdder();
    final LongAdder flushes = new LongAdder();

    private FrameStream(ClientConfig config, Listener listener) {
        this.config = config;
        this.listener = listener;
    }

    /** Opens a stream on {@code connection} and authenticates it. */
    static CompletableFuture<FrameStream> open(QuicChannel connection, ClientConfig config, Listener listener) {
        FrameStream stream = new FrameStream(config, listener);
        connection.createStream(QuicStreamType.BIDIRECTIONAL, new io.netty.channel.ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                ch.pipeline().addLast(ClientFrames.decoder(config.maxFrameBytes), stream);
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                stream.ready.completeExceptionally(new FelixClientException(ErrorCode.CONNECTION_LOST,
                        "could not open a stream: " + f.cause().getMessage(), -1, f.cause()));
            }
        });
        return stream.ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
        channel.writeAndFlush(ClientFrames.encode(new Message.Auth(config.tenant, config.token, Capabilities.ALL,
                Capabilities.EXT_ALL)));
        ctx.fireChannelActive();
    }

    /** Capabilities both sides support on this stream (both words, {@link Capabilities#combine}). */
    int negotiated() {
        return negotiated;
    }

    QuicStreamChannel channel() {
        return channel;
    }

    CompletableFuture<FrameStream> ready() {
        return ready;
    }

    ChannelFuture write(WirePayload payload) {
        return write(ClientFrames.encode(payload));
    }

    /**
     * Queues an encoded frame for the next flush (see the class comment); ownership of {@code frame} passes to
     * this stream. Any thread. The future completes when the frame is written, or fails if it cannot be.
     */
    ChannelFuture write(ByteBuf frame) {
        ChannelPromise promise = channel.newPromise();
        outbox.add(new Outgoing(frame, promise));
        framesWritten.increment();
        // Queue first, then claim the task: a writer that finds a task pending knows it has not drained yet
        // (drain clears the flag before it polls), so that task will take this frame.
        if (drainScheduled.compareAndSet(false, true)) {
            onLoop(this::drain);
        }
        return promise;
    }

    /** The stream's buffer allocator (pooled), for frames encoded off the event loop. */
    io.netty.buffer.ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /**
     * Event loop: writes every queued frame, then flushes once. A lone frame is written as it is; several are
     * copied into shared buffers ({@link FrameBatch}), since a QUIC stream sends a packet per buffer written.
     */
    private void drain() {
        drainScheduled.set(false);
        Outgoing first = outbox.poll();
        if (first == null) {
            return;
        }
        Outgoing next = outbox.poll();
        if (next == null) {
            // A closed channel fails the promise and releases the frame. Each frame is encoded for its write: ours
            // alone, as StreamWrites.writeOwned needs.
            StreamWrites.writeOwned(channel, first.frame(), first.promise());
        } else {
            if (batch == null) {
                batch = new FrameBatch(channel);
            }
            batch.add(first.frame(), first.promise());
            for (Outgoing o = next; o != null; o = outbox.poll()) {
                batch.add(o.frame(), o.promise());
            }
            batch.write();
        }
        channel.flush();
        flushes.increment();
    }

    /** Runs {@code task} on the event loop; if it is gone, fails (and releases) what is queued instead. */
    private void onLoop(Runnable task) {
        try {
            channel.eventLoop().execute(task);
        } catch (RejectedExecutionException e) {
            for (Outgoing o; (o = outbox.poll()) != null; ) {
                o.frame().release();
                o.promise().tryFailure(e);
            }
        }
    }

    /** Finishes our side of the stream (FIN), after what was written; see {@link StreamEnds}. */
    void finish() {
        closedHere = true;
        onLoop(() -> {
            drain();
            StreamEnds.finish(channel);
        });
    }

    /** Closes the stream, after what was written. */
    void close() {
        closedHere = true;
        onLoop(() -> {
            drain();
            channel.close();
        });
    }

    /**
     * The error for this stream having ended without one, naming who ended it ({@code what}: "cache stream",
     * …): this client, the broker, or the transport. See {@link PeerClose#streamEnded}.
     */
    FelixClientException endedWithoutError(String what) {
        return PeerClose.streamEnded(channel == null ? null : channel.parent(), what, closedHere);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            end(new FelixClientException(ErrorCode.INTERNAL, "the broker sent a bad frame: " + bad.reason()));
            ctx.close();
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        WirePayload payload;
        try {
            payload = ClientFrames.decode(frame);
        } catch (WireException e) {
            end(new FelixClientException(ErrorCode.INTERNAL, "undecodable frame from the broker: " + e.getMessage()));
            ctx.close();
            return;
        } finally {
            frame.release();
        }
        if (!authenticated) {
            if (payload instanceof Message.AuthOk ok) {
                authenticated = true;
                negotiated = Capabilities.negotiate(Capabilities.ALL_WORDS, ok.capabilities());
                ready.complete(this);
            } else if (payload instanceof Message.Ok) {
                authenticated = true; // an upstream broker that predates capability negotiation
                ready.complete(this);
            } else if (payload instanceof Message.ErrorMessage error) {
                FelixClientException refused = ClientFrames.toException(error);
                if (refused.code() == ErrorCode.UNAUTHORIZED) {
                    refused = new FelixClientException(ErrorCode.UNAUTHORIZED, error.message() + " (tenant '"
                            + config.tenant + "', " + (config.token == null || config.token.isEmpty() ? "no token"
                            : "the token") + " set with ClientConfig.Builder.token)");
                }
                end(refused);
            } else {
                end(new FelixClientException(ErrorCode.INTERNAL, "unexpected reply to auth: " + payload));
            }
            return;
        }
        listener.onPayload(payload);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end(null);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end(new FelixClientException(ErrorCode.CONNECTION_LOST, "stream failed: " + cause.getMessage(), -1, cause));
        ctx.close();
    }

    private void end(FelixClientException cause) {
        if (ended) {
            return;
        }
        ended = true;
        if (cause == null && channel != null) {
            cause = PeerClose.cause(channel.parent()); // the whole connection was closed, with a reason
        }
        FelixClientException c = cause != null ? cause
                : new FelixClientException(ErrorCode.CONNECTION_LOST, "the stream ended before authentication");
        if (!ready.isDone()) {
            ready.completeExceptionally(c);
            return;
        }
        listener.onClosed(cause);
    }
}
