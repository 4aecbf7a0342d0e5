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
import dev.felix.wire.CursorErrorReason;
import dev.felix.wire.Message;
import dev.felix.transport.StreamEnds;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Serves a {@code subscribe} on the control stream that carried it.
 *
 * <p>Registers one core subscription per shard (all shards, or the one requested), then opens one
 * event stream per shard on the same connection, writes {@code event_stream_hello} on each, replies
 * {@code subscribed} and finishes the control stream. Deliveries start only after that, so the
 * client always has the reply before the first event is sent. A refused subscribe gets
 * {@code subscribe_cursor_error} (cursor out of range) or a typed {@code error}, and nothing stays
 * registered.
 */
final class SubscribeHandler {

    private final ServerContext context;
    private final ConnectionHandler connection;
    private final QuicStreamChannel control;
    private final int negotiated;
    private final String tenant;
    private final ClientStreamHandler controlHandler;

    SubscribeHandler(ServerContext context, ConnectionHandler connection, QuicStreamChannel control,
            int negotiated, String tenant, ClientStreamHandler controlHandler) {
        this.context = context;
        this.connection = connection;
        this.control = control;
        this.negotiated = negotiated;
        this.tenant = tenant;
        this.controlHandler = controlHandler;
    }

    void subscribe(Message.Subscribe s) {
        Stream stream;
        List<Integer> shards = new ArrayList<>();
        SubscribeRequest request;
        try {
            if (!tenant.equals(s.tenantId())) {
                throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch: this stream is authenticated for '"
                        + tenant + "'");
            }
            StreamName name;
            try {
                name = new StreamName(s.tenantId(), s.namespace(), s.stream());
            } catch (IllegalArgumentException e) {
                throw new FelixException(ErrorCode.BAD_REQUEST, e.getMessage());
            }
            stream = context.broker.stream(name);
            if (s.shard() != null) {
                int shard = s.shard();
                if (shard < 0 || shard >= stream.shardCount()) {
                    throw new FelixException(ErrorCode.BAD_REQUEST, "stream " + name + " has " + stream.shardCount()
                            + " shards; there is no shard " + Integer.toUnsignedString(shard));
                }
                shards.add(shard);
            } else if (stream.shardCount() > 1 && !Capabilities.has(negotiated, Capabilities.SHARDS)) {
                throw new FelixException(ErrorCode.BAD_REQUEST, "stream " + name + " has " + stream.shardCount()
                        + " shards and this client did not negotiate shard support; subscribe to one shard");
            } else {
                for (int i = 0; i < stream.shardCount(); i++) {
                    shards.add(i);
                }
            }
            request = new SubscribeRequest(start(s.start()), policy(s), limits(s),
                    s.incarnation() != null ? s.incarnation() : 0);
        } catch (FelixException e) {
            refuse(e.error(), s);
            return;
        }
        if (!connection.reserveSubscriptions(shards.size())) {
            refuse(FelixError.of(ErrorCode.OVERLOADED, "this connection holds "
                    + ServerContext.MAX_SUBSCRIPTIONS_PER_CONNECTION + " subscriptions already"), s);
            return;
        }
        List<CompletableFuture<Subscription>> futures = new ArrayList<>();
        for (int shard : shards) {
            futures.add(stream.shard(shard).subscribe(request));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).whenComplete((v, err) ->
                control.eventLoop().execute(() -> registered(s, futures, shards.size())));
    }

    private void registered(Message.Subscribe s, List<CompletableFuture<Subscription>> futures, int reserved) {
        connection.releaseReservation(reserved);
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
        if (failure != null || !control.isActive() || !connection.channel().isActive()) {
            subscriptions.forEach(Subscription::close);
            if (failure != null) {
                refuse(failure, s);
            }
            return;
        }
        openEventStreams(subscriptions);
    }

    private void openEventStreams(List<Subscription> subscriptions) {
        long subscriptionId = subscriptions.get(0).id();
        List<SubscriptionWriter> writers = new ArrayList<>();
        int[] opened = {0};
        boolean[] failed = {false};
        for (Subscription sub : subscriptions) {
            SubscriptionWriter writer = new SubscriptionWriter(context, connection, sub, subscriptionId, negotiated);
            writers.add(writer);
            connection.channel().createStream(QuicStreamType.UNIDIRECTIONAL, writer).addListener(f -> {
                if (failed[0]) {
                    if (f.isSuccess()) {
                        ((QuicStreamChannel) f.getNow()).close();
                    }
                    return;
                }
                if (!f.isSuccess()) {
                    failed[0] = true;
                    subscriptions.forEach(Subscription::close);
                    refuse(FelixError.of(ErrorCode.UNAVAILABLE, "could not open an event stream: "
                            + f.cause().getMessage()), null);
                    return;
                }
                writer.bind((QuicStreamChannel) f.getNow());
                if (++opened[0] == subscriptions.size()) {
                    List<Integer> shardList = null;
                    if (Capabilities.has(negotiated, Capabilities.SHARDS)) {
                        shardList = subscriptions.stream().map(Subscription::shard).toList();
                    }
                    StreamEnds.writeLast(control, Frames.json(new Message.Subscribed(subscriptionId, shardList)));
                    writers.forEach(SubscriptionWriter::start);
                    if (Capabilities.has(negotiated, Capabilities.SUBSCRIPTION_LIFELINE)) {
                        // The client ends its side of the subscribe stream to unsubscribe.
                        controlHandler.whenInputEnds(() -> writers.forEach(SubscriptionWriter::close));
                    }
                }
            });
        }
    }

    private void refuse(FelixError error, Message.Subscribe s) {
        context.metrics.error(error.code());
        Message reply;
        if (error.code() == ErrorCode.CURSOR_TOO_OLD || error.code() == ErrorCode.CURSOR_IN_FUTURE) {
            long requested = s != null && s.start() instanceof dev.felix.wire.StartPosition.AtOffset at
                    ? at.offset() : error.offset();
            reply = new Message.SubscribeCursorError(error.code() == ErrorCode.CURSOR_TOO_OLD
                    ? CursorErrorReason.TOO_OLD : CursorErrorReason.IN_FUTURE, requested, error.offset());
        } else {
            reply = Frames.error(error, null, negotiated);
        }
        if (control.isActive()) {
            StreamEnds.writeLast(control, Frames.json(reply));
        }
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

    private static QueuePolicy policy(Message.Subscribe s) throws FelixException {
        if (s.queuePolicy() == null) {
            return null;
        }
        return QueuePolicy.parse(s.queuePolicy().wireName());
    }

    private QueueLimits limits(Message.Subscribe s) throws FelixException {
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
