package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamName;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.Stream;
import dev.felix.server.auth.Authenticator;
import dev.felix.server.config.Settings;
import dev.felix.transport.FrameDecoder;
import dev.felix.transport.StreamEnds;
import dev.felix.wire.AckMode;
import dev.felix.wire.AckedPublishPrefix;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one client-opened stream: {@code auth} first, then any mix of publishes (JSON or binary),
 * a subscribe (which hands the stream over to {@link SubscribeHandler}), and admin requests.
 *
 * <p><b>Errors end only this stream.</b> A malformed frame, bad JSON, an unknown type or a message
 * before {@code auth} gets a typed {@code error} (with {@code code} when negotiated) and the stream is
 * closed; the connection and its other streams carry on. Requests that are well formed but refused
 * (unknown stream, overloaded) get an error reply and the stream stays open.
 *
 * <p><b>Ingress backpressure.</b> When a shard's writer queue is full, under
 * {@code ingress_policy: block} the handler stops reading this stream (frames already decoded wait in
 * a small backlog) until the shard has room; QUIC flow control then slows the publisher. Under
 * {@code drop_new} the publish is refused instead.
 *
 * <p>Not sharable; event-loop confined.
 */
final class ClientStreamHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ClientStreamHandler.class);

    private final ServerContext context;
    private QuicStreamChannel channel;
    private ConnectionHandler connection;
    private boolean bidirectional;
    private String tenant;
    private int negotiated = FrameFlags.ORIGINAL_V1;
    private AckWriter acks;
    private boolean closed;
    private boolean handedOver;
    private boolean inputEnded;
    private Runnable inputEndListener;
    /** Bytes of an incomplete frame the decoder held when the client's side ended (see {@link #endOfInputProbe}). */
    private int pendingAtInputEnd;

    /** Ingress backpressure: frames read while a publish waits for its shard. */
    private final ArrayDeque<ByteBuf> backlog = new ArrayDeque<>();
    private PendingPublish waiting;

    private record PendingPublish(Shard shard, PublishRequest request) {
    }

    ClientStreamHandler(ServerContext context) {
        this.context = context;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = (QuicStreamChannel) ctx.channel();
        bidirectional = channel.type() == QuicStreamType.BIDIRECTIONAL;
        connection = channel.parent().attr(ConnectionHandler.KEY).get();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FrameDecoder.BadHeader bad) {
            FelixError error = Frames.badHeader(bad, ctx.channel()); // too_large (logged) or bad_request
            fail(error.code(), error.message());
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        if (closed || handedOver) {
            frame.release();
            return;
        }
        if (waiting != null) {
            backlog.add(frame); // ownership moves to the backlog
            return;
        }
        try {
            handle(frame);
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closed = true;
        releaseBacklog();
        inputEnded();
        ctx.fireChannelInactive();
    }

    /** Runs {@code listener} when the client's side of this stream ends (now, if it already has). */
    void whenInputEnds(Runnable listener) {
        if (inputEnded) {
            listener.run();
        } else {
            inputEndListener = listener;
        }
    }

    private void inputEnded() {
        if (inputEnded) {
            return;
        }
        inputEnded = true;
        Runnable r = inputEndListener;
        inputEndListener = null;
        if (r != null) {
            r.run();
        }
    }

    /**
     * A handler to place just before {@code decoder}: when the client's side ends, the decoder releases
     * the bytes of an incomplete frame before the end-of-input event gets past it, so their count is
     * recorded here first.
     */
    ChannelHandler endOfInputProbe(FrameDecoder decoder) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof ChannelInputShutdownEvent) {
                    pendingAtInputEnd = decoder.pendingBytes();
                }
                ctx.fireUserEventTriggered(evt);
            }
        };
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        // End of the client's side of the stream: a truncated frame left behind is an error.
        if (evt instanceof io.netty.channel.socket.ChannelInputShutdownReadComplete
                || evt instanceof ChannelInputShutdownEvent) {
            if (pendingAtInputEnd > 0 && !closed && !handedOver) {
                fail(ErrorCode.BAD_REQUEST, "stream ended inside a frame (" + pendingAtInputEnd
                        + " bytes of an incomplete frame)");
            }
            inputEnded();
            finishIfDone();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * Once the client has finished its side, finishes ours as soon as nothing more is owed: frames held
     * back by ingress backpressure are processed and every acknowledgement is written (as upstream,
     * whose control loop ends the stream when the client's side ends). A stream handed over to a
     * subscription is left to {@link SubscribeHandler}.
     */
    private void finishIfDone() {
        if (!inputEnded || closed || handedOver || waiting != null) {
            return;
        }
        if (acks == null) {
            close();
        } else {
            acks.finishWhenIdle(() -> !closed && !handedOver, () -> {
                if (!closed && !handedOver) {
                    close();
                }
            });
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("stream {} failed: {}", ctx.channel(), cause.toString());
        closed = true;
        releaseBacklog();
        ctx.close();
    }

    // ------------------------------------------------------------------ dispatch

    private void handle(ByteBuf frame) {
        int flags = frame.getUnsignedShort(frame.readerIndex() + FrameHeader.FLAGS_OFFSET);
        ByteBuffer payload = frame.nioBuffer(frame.readerIndex() + FrameHeader.HEADER_LENGTH,
                frame.readableBytes() - FrameHeader.HEADER_LENGTH);
        try {
            if (flags == 0) {
                handleJson(WireCodec.decodeJson(payload));
            } else if (tenant == null) {
                fail(ErrorCode.UNAUTHORIZED, "auth required: the first frame on a stream must be auth");
            } else if (flags == FrameFlags.BINARY_PUBLISH_BATCH) {
                BinaryPublishBatch b = WireCodec.decodePublishBatch(payload);
                publish(name(b.tenantId(), b.namespace(), b.stream()), null, null, toArray(b.payloads()), null);
            } else if (flags == (FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED)) {
                handleAckedBinary(payload);
            } else {
                fail(ErrorCode.BAD_REQUEST, "frame flags 0x" + Integer.toHexString(flags)
                        + " are not valid from a client");
            }
        } catch (WireException e) {
            fail(ErrorCode.BAD_REQUEST, "malformed frame: " + e.getMessage());
        } catch (FelixException e) {
            reply(e.error(), null);
        }
    }

    private void handleAckedBinary(ByteBuffer payload) throws WireException, FelixException {
        AckedPublishPrefix prefix = WireCodec.decodeAckedPublishPrefix(payload); // bad prefix: stream ends
        BinaryPublishBatch batch;
        try {
            batch = WireCodec.decodeAckedPublishBatch(payload).batch();
        } catch (WireException e) {
            write(BinaryPublishAck.error(prefix.requestId(), "malformed publish batch: " + e.getMessage()));
            return;
        }
        StreamName name;
        try {
            name = name(batch.tenantId(), batch.namespace(), batch.stream());
        } catch (FelixException e) {
            acks.refuse(prefix.requestId(), true, e.error());
            return;
        }
        publish(name, null, null, toArray(batch.payloads()), new Ack(prefix.requestId(), true));
    }

    private void handleJson(Message m) throws FelixException {
        if (tenant == null) {
            if (m instanceof Message.Auth auth) {
                authenticate(auth);
            } else {
                fail(ErrorCode.UNAUTHORIZED, "auth required: the first frame on a stream must be auth");
            }
            return;
        }
        if (m instanceof Message.Publish p) {
            Ack ack = jsonAck(p.ack(), p.requestId(), false);
            if (ack == MISSING_ID) {
                reply(FelixError.of(ErrorCode.BAD_REQUEST, "missing request_id for acked publish"), null);
                return;
            }
            StreamName name = nameOrRefuse(p.tenantId(), p.namespace(), p.stream(), ack);
            if (name != null) {
                publish(name, p.key(), p.shard(), new byte[][] {p.payload()}, ack);
            }
        } else if (m instanceof Message.PublishBatch p) {
            Ack ack = jsonAck(p.ack(), p.requestId(), true);
            if (ack == MISSING_ID) {
                reply(FelixError.of(ErrorCode.BAD_REQUEST, "missing request_id for acked publish batch"), null);
                return;
            }
            if (p.payloads().isEmpty()) {
                if (ack != null) {
                    acks.refuse(ack.requestId, false, FelixError.of(ErrorCode.BAD_REQUEST, "empty publish batch"));
                }
                return;
            }
            StreamName name = nameOrRefuse(p.tenantId(), p.namespace(), p.stream(), ack);
            if (name != null) {
                publish(name, p.key(), p.shard(), toArray(p.payloads()), ack);
            }
        } else if (m instanceof Message.Subscribe s) {
            if (!bidirectional) {
                fail(ErrorCode.BAD_REQUEST, "subscribe needs a bidirectional stream");
                return;
            }
            handedOver = true;
            new SubscribeHandler(context, connection, channel, negotiated, tenant, this).subscribe(s);
        } else if (m instanceof Message.StreamCreate || m instanceof Message.StreamDescribe
                || m instanceof Message.StreamList) {
            if (!bidirectional) {
                fail(ErrorCode.BAD_REQUEST, "admin requests need a bidirectional stream");
                return;
            }
            acks.inOrder(Admin.handle(context, tenant, m, negotiated));
        } else if (m instanceof Message.CachePut || m instanceof Message.CacheGet || m instanceof Message.CacheDelete
                || m instanceof Message.CacheCreate || m instanceof Message.CacheDescribe) {
            if (!bidirectional) {
                // Upstream allows fire-and-forget puts on a uni stream; nobody can be answered there.
                if (m instanceof Message.CachePut) {
                    CacheRequests.handle(context, tenant, m, negotiated);
                    return;
                }
                fail(ErrorCode.BAD_REQUEST, "cache reads need a bidirectional stream");
                return;
            }
            boolean singleShot = (m instanceof Message.CachePut p && p.requestId() == null)
                    || (m instanceof Message.CacheGet g && g.requestId() == null);
            acks.inOrder(CacheRequests.handle(context, tenant, m, negotiated));
            if (singleShot) {
                // Upstream form without request_id: one request, one reply, then the stream ends.
                handedOver = true;
                acks.finishWhenIdle(() -> true, () -> { });
            }
        } else if (m instanceof Message.CacheWatch w) {
            if (!bidirectional) {
                fail(ErrorCode.BAD_REQUEST, "cache_watch needs a bidirectional stream");
                return;
            }
            handedOver = true;
            new WatchWriter(context, channel, negotiated, tenant, this).start(w);
        } else if (m instanceof Message.Auth) {
            fail(ErrorCode.BAD_REQUEST, "auth already established on this stream");
        } else if (m instanceof Message.ErrorMessage) {
            close(); // a client reporting an error ends its stream
        } else {
            fail(ErrorCode.BAD_REQUEST, "unexpected message type " + m.type() + " from a client");
        }
    }

    private void authenticate(Message.Auth auth) {
        if (auth.clientFlags() != null) {
            // Also shapes the error if this auth is refused: a client that asked for codes gets one.
            negotiated = Capabilities.negotiate(auth.clientFlags(), ServerContext.SERVER_FLAGS);
        }
        try {
            StreamName.checkPart("tenant", auth.tenantId());
        } catch (IllegalArgumentException e) {
            fail(ErrorCode.BAD_REQUEST, e.getMessage());
            return;
        }
        Authenticator.Result result = context.authenticator.authenticate(auth.tenantId(), auth.token(),
                connection != null && connection.loopbackPeer());
        if (result instanceof Authenticator.Denied denied) {
            fail(denied.error().code(), denied.error().message());
            return;
        }
        tenant = ((Authenticator.Allowed) result).tenant();
        acks = new AckWriter(channel, negotiated, context);
        if (bidirectional) {
            write(auth.clientFlags() != null ? new Message.AuthOk(ServerContext.SERVER_FLAGS) : new Message.Ok());
        }
    }

    // ------------------------------------------------------------------ publish

    /** Who is waiting for an acknowledgement of a publish: its request id and reply encoding. */
    private record Ack(long requestId, boolean binary) {
    }

    private static final Ack MISSING_ID = new Ack(-1, false);

    /** Upstream rule: an absent {@code ack} means acknowledged, which then needs a request id. */
    private static Ack jsonAck(AckMode mode, Long requestId, boolean batch) {
        if (mode == AckMode.NONE) {
            return null;
        }
        return requestId == null ? MISSING_ID : new Ack(requestId, false);
    }

    private StreamName nameOrRefuse(String tenantId, String namespace, String stream, Ack ack) {
        try {
            return name(tenantId, namespace, stream);
        } catch (FelixException e) {
            if (ack != null) {
                acks.refuse(ack.requestId, ack.binary, e.error());
            } else {
                reply(e.error(), null);
            }
            return null;
        }
    }

    private StreamName name(String tenantId, String namespace, String stream) throws FelixException {
        if (!tenant.equals(tenantId)) {
            throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch: this stream is authenticated for '"
                    + tenant + "'");
        }
        try {
            return new StreamName(tenantId, namespace, stream);
        } catch (IllegalArgumentException e) {
            throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
        }
    }

    private void publish(StreamName name, String key, Integer shardIndex, byte[][] payloads, Ack ack) {
        if (ack != null && !bidirectional) {
            fail(ErrorCode.BAD_REQUEST, "acknowledged publishes need a bidirectional stream");
            return;
        }
        if (context.draining()) {
            refuseOrReport(ack, FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
            return;
        }
        Shard shard;
        try {
            Stream stream = context.broker.stream(name);
            if (shardIndex != null) {
                if (shardIndex < 0 || shardIndex >= stream.shardCount()) {
                    refuseOrReport(ack, FelixError.of(ErrorCode.BAD_REQUEST, "stream " + name + " has "
                            + stream.shardCount() + " shards; there is no shard " + Integer.toUnsignedString(shardIndex)));
                    return;
                }
                shard = stream.shard(shardIndex);
            } else {
                shard = stream.shardFor(key);
            }
        } catch (FelixException e) {
            refuseOrReport(ack, e.error());
            return;
        }
        PublishListener listener = ack == null ? null : acks.listener(ack.requestId, ack.binary);
        PublishRequest request = PublishRequest.of(payloads, listener);
        if (shard.tryPublish(request)) {
            return;
        }
        if (context.config.ingressPolicy() == Settings.IngressPolicy.DROP_NEW) {
            if (ack != null) {
                listener.failed(FelixError.of(ErrorCode.OVERLOADED, // its listener: the ack is no longer owed
                        "shard " + name + "/" + shard.index() + " is overloaded; retry later"));
            } else {
                context.metrics.ingressDroppedEvents.add(payloads.length);
            }
            return;
        }
        pause(shard, request);
    }

    private void refuseOrReport(Ack ack, FelixError error) {
        if (ack != null) {
            acks.refuse(ack.requestId, ack.binary, error);
        } else {
            reply(error, null);
        }
    }

    /** Stops reading until {@code shard} has room for {@code request}. */
    private void pause(Shard shard, PublishRequest request) {
        waiting = new PendingPublish(shard, request);
        channel.config().setAutoRead(false);
        context.metrics.ingressPaused.increment();
        shard.onWritable(() -> channel.eventLoop().execute(this::resume));
    }

    private void resume() {
        if (waiting == null || closed) {
            return;
        }
        if (!waiting.shard.tryPublish(waiting.request)) {
            waiting.shard.onWritable(() -> channel.eventLoop().execute(this::resume));
            return;
        }
        waiting = null;
        while (waiting == null && !backlog.isEmpty() && !closed && !handedOver) {
            ByteBuf frame = backlog.poll();
            try {
                handle(frame);
            } finally {
                frame.release();
            }
        }
        if (waiting == null && !closed) {
            channel.config().setAutoRead(true);
            channel.read();
            finishIfDone();
        }
    }

    // ------------------------------------------------------------------ replies

    /** Replies with an error and keeps the stream open (the request was refused, not malformed). */
    private void reply(FelixError error, Long requestId) {
        context.metrics.error(error.code());
        if (bidirectional) {
            write(Frames.error(error, requestId, negotiated));
        }
    }

    /** Replies with an error, then closes the stream: it cannot be trusted any more. */
    private void fail(ErrorCode code, String message) {
        if (closed) {
            return;
        }
        context.metrics.error(code);
        closed = true;
        releaseBacklog();
        if (bidirectional && channel.isActive()) {
            Message error = Frames.error(code, message, negotiated);
            if (acks != null) {
                acks.afterPending(ch -> StreamEnds.writeLast(ch, Frames.json(error)));
            } else {
                StreamEnds.writeLast(channel, Frames.json(error));
            }
        } else {
            closeStream(channel);
        }
    }

    private void close() {
        closed = true;
        releaseBacklog();
        closeStream(channel);
    }

    /**
     * Ends this stream from our side (FIN after what was written; {@link StreamEnds} says why a FIN is
     * attached to the last reply wherever there is one) and keeps reading, discarding whatever the
     * client still sends, until its side ends too; Netty then closes the stream and QUIC releases it. Closing the channel here instead (as this used to) stops Netty reading it, so the
     * client's FIN is never consumed and the stream, with one of the connection's stream credits, is
     * never released before the connection closes. STOP_SENDING is not used: quiche then discards
     * the client's end unseen, and Netty keeps every such stream until the connection closes.
     */
    private static void closeStream(QuicStreamChannel ch) {
        if (ch.type() == QuicStreamType.BIDIRECTIONAL) {
            StreamEnds.finish(ch);
        }
    }

    private void write(Message message) {
        channel.writeAndFlush(Frames.json(message), channel.voidPromise());
    }

    private void write(BinaryPublishAck ack) {
        channel.writeAndFlush(Unpooled.wrappedBuffer(WireCodec.encodeFrame(ack)), channel.voidPromise());
    }

    private void releaseBacklog() {
        ByteBuf b;
        while ((b = backlog.poll()) != null) {
            b.release();
        }
        waiting = null;
    }

    private static byte[][] toArray(List<byte[]> payloads) {
        return payloads.toArray(new byte[0][]);
    }
}
