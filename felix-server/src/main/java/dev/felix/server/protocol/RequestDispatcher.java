package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Decodes each frame of a client-opened stream and hands it to the handler for its kind: {@code auth} first
 * ({@link StreamAuthentication}), then publishes ({@link PublishHandler}), a subscribe
 * ({@link SubscribeHandler}, which takes the stream over), a watch ({@link WatchWriter}, likewise), stream
 * admin ({@link Admin}) and cache requests ({@link CacheRequests}). Undecodable input ends the stream with
 * {@code bad_request}; a message type that makes no sense here does too.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined. It does not own the frames it is given: the caller
 * ({@link ClientStreamHandler}) releases each after {@code handle} returns, so nothing here keeps a view of a frame
 * beyond the call; decoded messages hold copies.
 */
final class RequestDispatcher {

    private final StreamSession session;
    private final ClientStreamHandler stream;
    private final PublishHandler publishes;
    /** Event loop: done once the last request deferred by {@link #afterCatchUp} was handed to its handler. */
    private CompletableFuture<Void> handedOver = CompletableFuture.completedFuture(null);
    /** The multiplexed subscriptions carried by this stream, once it carries any. */
    private MuxSession muxSession;

    /** {@code 0x0029}: the routed acked binary publish ({@link Capabilities#ROUTED_BINARY_PUBLISH}). */
    private static final int ROUTED_PUBLISH = FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED
            | FrameFlags.EVENT_BATCH_OFFSETS;

    RequestDispatcher(StreamSession session, ClientStreamHandler stream) {
        this.session = session;
        this.stream = stream;
        this.publishes = new PublishHandler(session, stream::resumed);
    }

    PublishHandler publishes() {
        return publishes;
    }

    /** Handles one whole frame (header included, reader index at the header). */
    void handle(ByteBuf frame) {
        int flags = frame.getUnsignedShort(frame.readerIndex() + FrameHeader.FLAGS_OFFSET);
        ByteBuffer payload = frame.nioBuffer(frame.readerIndex() + FrameHeader.HEADER_LENGTH,
                frame.readableBytes() - FrameHeader.HEADER_LENGTH);
        try {
            if (flags == 0) {
                handleJson(WireCodec.decodeJson(payload));
            } else if (!session.authenticated()) {
                session.fail(ErrorCode.UNAUTHORIZED, "auth required: the first frame on a stream must be auth");
            } else if (flags == FrameFlags.BINARY_PUBLISH_BATCH) {
                session.context.metrics.publishFramesBinary.increment();
                publishes.binary(payload);
            } else if (flags == (FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED)) {
                session.context.metrics.publishFramesBinary.increment();
                publishes.ackedBinary(payload);
            } else if (flags == ROUTED_PUBLISH) {
                if (!Capabilities.has(session.negotiated(), Capabilities.ROUTED_BINARY_PUBLISH)) {
                    session.fail(ErrorCode.BAD_REQUEST, "frame flags 0x0029 (routed publish) need the"
                            + " ROUTED_BINARY_PUBLISH capability (client_flags_ext 0x0001 in auth)");
                    return;
                }
                session.context.metrics.publishFramesBinary.increment();
                publishes.routedBinary(payload);
            } else {
                session.fail(ErrorCode.BAD_REQUEST, "frame flags 0x" + Integer.toHexString(flags)
                        + " are not valid from a client");
            }
        } catch (WireException e) {
            session.fail(ErrorCode.BAD_REQUEST, "malformed frame: " + e.getMessage());
        } catch (FelixException e) {
            session.reply(e.error(), null);
        }
    }

    private void handleJson(Message m) throws FelixException {
        if (!session.authenticated()) {
            if (m instanceof Message.Auth auth) {
                StreamAuthentication.authenticate(session, auth);
            } else {
                session.fail(ErrorCode.UNAUTHORIZED, "auth required: the first frame on a stream must be auth");
            }
            return;
        }
        if (m instanceof Message.Publish p) {
            session.context.metrics.publishFramesJson.increment();
            publishes.json(p);
        } else if (m instanceof Message.PublishBatch p) {
            session.context.metrics.publishFramesJson.increment();
            publishes.json(p);
        } else if (m instanceof Message.Subscribe s) {
            if (requireBidirectional("subscribe needs a bidirectional stream")) {
                session.handOver();
                new SubscribeHandler(session, stream).subscribe(s);
            }
        } else if (m instanceof Message.MuxSubscribe || m instanceof Message.Credit
                || m instanceof Message.Unsubscribe) {
            mux(m);
        } else if (Admin.handles(m)) {
            if (requireBidirectional("admin requests need a bidirectional stream")) {
                session.acks().inOrder(afterCatchUp(m,
                        () -> Admin.handle(session.context, session.tenant(), m, session.negotiated())));
            }
        } else if (m instanceof Message.ClusterStatus cs) {
            if (requireBidirectional("cluster_status needs a bidirectional stream")) {
                session.acks().inOrder(java.util.concurrent.CompletableFuture.completedFuture(
                        session.context.cluster == null
                                ? Frames.error(dev.felix.core.FelixError.of(dev.felix.core.ErrorCode.BAD_REQUEST,
                                        "this broker is a single node, not a cluster member"), cs.requestId(),
                                        session.negotiated())
                                : ClusterStatusRequests.answer(session.context, cs.requestId())));
            }
        } else if (CacheRequests.handles(m)) {
            cache(m);
        } else if (m instanceof Message.CacheWatch w) {
            if (requireBidirectional("cache_watch needs a bidirectional stream")) {
                session.handOver();
                afterCatchUp(w, () -> {
                    if (!session.closed()) {
                        new WatchWriter(session, stream).start(w);
                    }
                    return CompletableFuture.completedFuture(null);
                }).exceptionally(e -> {
                    session.fail(ErrorCode.INTERNAL, "cache_watch could not start: " + e);
                    return null;
                });
            }
        } else if (m instanceof Message.Auth) {
            session.fail(ErrorCode.BAD_REQUEST, "auth already established on this stream");
        } else if (m instanceof Message.ErrorMessage) {
            session.close(); // a client reporting an error ends its stream
        } else {
            session.fail(ErrorCode.BAD_REQUEST, "unexpected message type " + m.type() + " from a client");
        }
    }

    /**
     * {@code handle} now, or on this stream's event loop once this cluster node has caught up with the metadata,
     * when {@code m} names a stream or cache it does not know yet ({@link CatchUpFirst}). Either way after every
     * earlier request of this stream was handed to its handler: a {@code cache_put} that waits must not be overtaken
     * by the next one on the same stream, whose cache this node may know by then. Replies keep their order anyway
     * ({@code acks().inOrder}); this keeps the order of the effects. A request that waited still runs if the client
     * has reset its stream meanwhile, as one already running would.
     */
    private <T> CompletableFuture<T> afterCatchUp(Message m, Supplier<CompletableFuture<T>> handle) {
        CompletableFuture<Void> first = CatchUpFirst.before(session.context, session.tenant(), m);
        if (first.isDone() && handedOver.isDone()) {
            return handle.get();
        }
        CompletableFuture<Void> ready = handedOver.isDone() ? first : CompletableFuture.allOf(handedOver, first);
        CompletableFuture<Void> started = new CompletableFuture<>();
        handedOver = started;
        return ready.thenComposeAsync(v -> {
            try {
                return handle.get();
            } finally {
                started.complete(null);
            }
        }, session.channel.eventLoop());
    }

    private void cache(Message m) {
        if (!session.bidirectional) {
            // Upstream allows fire-and-forget puts on a uni stream; nobody can be answered there.
            if (m instanceof Message.CachePut) {
                afterCatchUp(m, () -> CacheRequests.handle(session.context, session.tenant(), m, session.negotiated()));
                return;
            }
            session.fail(ErrorCode.BAD_REQUEST, "cache requests other than cache_put need a bidirectional stream");
            return;
        }
        boolean singleShot = (m instanceof Message.CachePut p && p.requestId() == null)
                || (m instanceof Message.CacheGet g && g.requestId() == null);
        session.acks().inOrder(afterCatchUp(m,
                () -> CacheRequests.handle(session.context, session.tenant(), m, session.negotiated())));
        if (singleShot) {
            // Upstream form without request_id: one request, one reply, then the stream ends.
            session.handOver();
            session.acks().finishWhenIdle(() -> true, () -> { });
        }
    }

    /** Multiplexed subscriptions: this stream becomes (or is) a session stream. */
    private void mux(Message m) {
        if (!requireBidirectional("multiplexed subscriptions need a bidirectional stream")) {
            return;
        }
        if (!Capabilities.has(session.negotiated(), Capabilities.SUBSCRIPTION_MUX)) {
            session.fail(ErrorCode.BAD_REQUEST, m.type().wireName() + " needs the SUBSCRIPTION_MUX capability");
            return;
        }
        if (muxSession == null) {
            muxSession = new MuxSession(session);
        }
        if (m instanceof Message.MuxSubscribe s) {
            muxSession.subscribe(s);
        } else if (m instanceof Message.Credit c) {
            muxSession.credit(c);
        } else {
            muxSession.unsubscribe((Message.Unsubscribe) m);
        }
    }

    private boolean requireBidirectional(String message) {
        if (!session.bidirectional) {
            session.fail(ErrorCode.BAD_REQUEST, message);
            return false;
        }
        return true;
    }
}
