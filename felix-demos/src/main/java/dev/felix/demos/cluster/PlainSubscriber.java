package dev.felix.demos.cluster;

import dev.felix.client.FelixClientException;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.FrameDecoder;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TransportConfig;
import dev.felix.wire.BinaryEventBatch;
import dev.felix.wire.BinarySharedEventBatch;
import dev.felix.wire.Capabilities;
import dev.felix.wire.CursorErrorReason;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.StartPosition;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A subscriber that did <em>not</em> negotiate gap notices: the "plain" client of issue 11, which a relay that lost
 * events closes with {@code resync} (naming the offset to subscribe again from) instead of sending a gap. The Java
 * SDK always asks for gap notices, so this speaks the wire itself: one QUIC connection, an {@code auth} asking for
 * error codes, shards, cluster redirects and the subscription lifeline but not {@link Capabilities#GAP_NOTICES} or
 * multiplexing, one classic {@code subscribe}, and the event stream the broker opens.
 *
 * <p><b>Flow control.</b> Decoded events wait in a bounded queue; past {@link #HIGH} the event stream stops
 * reading until the consumer takes them down to {@link #LOW}, so a slow consumer pushes back through QUIC's stream
 * window (kept small here) to the broker, as a real slow client would.
 *
 * <p><b>Threads.</b> {@link #open} and {@link #next} from one consumer thread; frames are decoded on the
 * connection's event loop. {@link #close()} from any thread.
 */
final class PlainSubscriber implements AutoCloseable {

    /** What this client asks for: everything but gap notices and multiplexing. */
    static final int FLAGS = (Capabilities.ALL & ~Capabilities.GAP_NOTICES & ~Capabilities.SUBSCRIPTION_MUX)
            & ~Capabilities.CACHE_EXT & ~Capabilities.ADMIN;
    static final int HIGH = 128;
    static final int LOW = 32;
    /** A small stream window: a consumer that stops reading is felt by the broker after a few KiB. */
    private static final long STREAM_WINDOW = 16 * 1024;

    /** One thing the subscriber received: a batch's events (by first offset and count) or the end. */
    sealed interface Received {
    }

    /** {@code count} events from {@code base}. */
    record Events(long base, int count) implements Received {
    }

    /** The broker (or the connection) ended the subscription. */
    record Ended(FelixClientException cause) implements Received {
    }

    private final QuicClient quic;
    private final LinkedBlockingQueue<Received> queue = new LinkedBlockingQueue<>();
    private final CompletableFuture<Void> subscribed = new CompletableFuture<>();
    private volatile Channel eventStream;
    private volatile boolean paused;
    private volatile boolean ended;
    private QuicChannel connection;

    private PlainSubscriber(QuicClient quic) {
        this.quic = quic;
    }

    /**
     * Connects to {@code broker} and subscribes to {@code tenant/namespace/stream} from {@code start}; returns once
     * the broker confirmed, or throws its refusal ({@code not_leader} with the leader, {@code cursor_too_old} with
     * the oldest offset in {@link FelixClientException#availableOffset()}, ...).
     */
    static PlainSubscriber open(InetSocketAddress broker, Path caCertificate, String tenant, String namespace,
            String stream, StartPosition start, Duration timeout) {
        QuicClient quic;
        try {
            TransportConfig transport = TransportConfig.builder().streamWindowBytes(STREAM_WINDOW).ioThreads(1).build();
            quic = QuicClient.create(broker, "localhost", transport, ClientTrust.certificates(caCertificate), null);
        } catch (Exception e) {
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "cannot create a QUIC client: " + e, -1, e);
        }
        PlainSubscriber s = new PlainSubscriber(quic);
        try {
            s.start(tenant, namespace, stream, start, timeout);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void start(String tenant, String namespace, String stream, StartPosition start, Duration timeout) {
        ChannelInitializer<QuicStreamChannel> brokerStreams = new ChannelInitializer<>() {
            @Override
            protected void initChannel(QuicStreamChannel ch) {
                ch.pipeline().addLast(decoder(), new EventStreamHandler());
            }
        };
        try {
            connection = quic.connect(null, brokerStreams).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            QuicStreamChannel control = connection.createStream(QuicStreamType.BIDIRECTIONAL, null)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            control.pipeline().addLast(decoder(), new ControlHandler(tenant, namespace, stream, start));
            control.writeAndFlush(frame(new Message.Auth(tenant, "any-token", FLAGS)));
            subscribed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof FelixClientException f) {
                throw f;
            }
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "could not subscribe: " + e.getCause(), -1, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new FelixClientException(ErrorCode.TIMEOUT, "no subscribe reply within " + timeout.toMillis()
                    + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.CONNECTION_LOST, "interrupted while subscribing");
        }
    }

    /** The next batch or the end, waiting up to {@code timeout}; null if nothing came. Consumer thread. */
    Received next(Duration timeout) throws InterruptedException {
        Received r = queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Channel ch = eventStream;
        if (paused && queue.size() <= LOW && ch != null) {
            paused = false;
            ch.eventLoop().execute(() -> {
                ch.config().setAutoRead(true);
                ch.read();
            });
        }
        return r;
    }

    @Override
    public void close() {
        if (connection != null && connection.isActive()) {
            connection.close(true, 0, Unpooled.EMPTY_BUFFER).awaitUninterruptibly(2_000);
        }
        quic.close();
    }

    private static FrameDecoder decoder() {
        return new FrameDecoder(FrameHeader.HEADER_LENGTH,
                (header, problem) -> FrameHeader.declaredPayloadLength(header, WireCodec.DEFAULT_MAX_FRAME_BYTES,
                        problem));
    }

    private static ByteBuf frame(WirePayload payload) {
        return Unpooled.wrappedBuffer(WireCodec.encodeFrame(payload));
    }

    private static int flags(ByteBuf frame) {
        return frame.getUnsignedShort(frame.readerIndex() + FrameHeader.FLAGS_OFFSET);
    }

    private static ByteBuffer payload(ByteBuf frame) {
        return frame.nioBuffer(frame.readerIndex() + FrameHeader.HEADER_LENGTH,
                frame.readableBytes() - FrameHeader.HEADER_LENGTH);
    }

    private static FelixClientException error(Message.ErrorMessage e) {
        return new FelixClientException(e.code() != null ? ErrorCode.fromCode(e.code()) : ErrorCode.INTERNAL,
                e.message(), e.offset() != null ? e.offset() : -1, null, e.leader());
    }

    private void end(FelixClientException cause) {
        if (!ended) {
            ended = true;
            queue.add(new Ended(cause));
        }
    }

    /** The subscribe stream: auth, subscribe, the reply; kept open (the lifeline) until the connection closes. */
    private final class ControlHandler extends ChannelInboundHandlerAdapter {
        private final Message.Subscribe subscribe;
        private boolean authed;

        ControlHandler(String tenant, String namespace, String stream, StartPosition start) {
            this.subscribe = new Message.Subscribe(tenant, namespace, stream, null, start, null, null, null, null,
                    null);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FrameDecoder.BadHeader bad) {
                subscribed.completeExceptionally(new FelixClientException(ErrorCode.INTERNAL, bad.reason()));
                return;
            }
            ByteBuf f = (ByteBuf) msg;
            try {
                WirePayload p = WireCodec.decodePayload(flags(f), payload(f));
                if (!authed) {
                    if (p instanceof Message.ErrorMessage e) {
                        subscribed.completeExceptionally(error(e));
                        return;
                    }
                    authed = true;
                    ctx.writeAndFlush(frame(subscribe));
                } else if (p instanceof Message.Subscribed) {
                    subscribed.complete(null);
                } else if (p instanceof Message.SubscribeCursorError e) {
                    boolean tooOld = e.reason() == CursorErrorReason.TOO_OLD;
                    subscribed.completeExceptionally(new FelixClientException(
                            tooOld ? ErrorCode.CURSOR_TOO_OLD : ErrorCode.CURSOR_IN_FUTURE,
                            "offset " + e.requested() + (tooOld ? " is no longer retained" : " is past the tail"),
                            e.available(), null));
                } else if (p instanceof Message.ErrorMessage e) {
                    FelixClientException x = error(e);
                    if (!subscribed.completeExceptionally(x)) {
                        end(x);
                    }
                }
            } catch (WireException e) {
                subscribed.completeExceptionally(new FelixClientException(ErrorCode.INTERNAL, e.getMessage()));
            } finally {
                f.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            subscribed.completeExceptionally(new FelixClientException(ErrorCode.CONNECTION_LOST,
                    "the broker closed the subscribe stream without a reply"));
        }
    }

    /** An event stream the broker opened: its hello, then batches, then perhaps an error. */
    private final class EventStreamHandler extends ChannelInboundHandlerAdapter {
        private boolean hello;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FrameDecoder.BadHeader bad) {
                end(new FelixClientException(ErrorCode.INTERNAL, "bad frame: " + bad.reason()));
                return;
            }
            ByteBuf f = (ByteBuf) msg;
            try {
                int flags = flags(f);
                if (!hello) {
                    hello = true;
                    eventStream = ctx.channel();
                    return; // event_stream_hello: one subscription per connection, nothing to route
                }
                if ((flags & FrameFlags.BINARY_EVENT_BATCH_SHARED) != 0) {
                    BinarySharedEventBatch b = WireCodec.decodeSharedEventBatch(flags, payload(f));
                    events(ctx, b.baseOffset(), b.payloads());
                } else if ((flags & FrameFlags.BINARY_EVENT_BATCH) != 0) {
                    BinaryEventBatch b = WireCodec.decodeEventBatch(flags, payload(f));
                    events(ctx, b.baseOffset(), b.payloads());
                } else {
                    Message m = WireCodec.decodeJson(payload(f));
                    if (m instanceof Message.ErrorMessage e) {
                        end(error(e));
                    } else if (m instanceof Message.Event e) {
                        events(ctx, e.offset(), List.of(e.payload()));
                    } else if (m instanceof Message.EventBatch e) {
                        events(ctx, e.baseOffset(), e.payloads());
                    } else if (m instanceof Message.Gap g) {
                        // Never sent to a client that did not ask for gap notices; if it were, it is a finding.
                        end(new FelixClientException(ErrorCode.INTERNAL, "a gap reached a client that did not"
                                + " negotiate gap notices: " + g));
                    }
                }
            } catch (WireException e) {
                end(new FelixClientException(ErrorCode.INTERNAL, "undecodable frame: " + e.getMessage()));
            } finally {
                f.release();
            }
        }

        private void events(ChannelHandlerContext ctx, Long base, List<byte[]> payloads) {
            if (base == null) {
                end(new FelixClientException(ErrorCode.INTERNAL, "an event batch without offsets"));
                return;
            }
            queue.add(new Events(base, payloads.size()));
            if (queue.size() >= HIGH && !paused) {
                paused = true;
                ctx.channel().config().setAutoRead(false);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            end(new FelixClientException(ErrorCode.UNAVAILABLE, "the event stream ended without an error"));
        }
    }
}
