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
    private final StreamSession session;

    SubscribeHandler(StreamSession session, ClientStreamHandler controlHandler) {
        this.session = session;
        this.context = session.context;
        this.connection = session.connection;
        this.control = session.channel;
        this.negotiated = session.negotiated();
        this.tenant = session.tenant();
        this.controlHandler = controlHandler;
    }

    void subscribe(Message.Subscribe s) {
        SubscriptionSetup.Spec spec = new SubscriptionSetup.Spec(s.tenantId(), s.namespace(), s.stream(), s.start(),
                s.shard(), s.queuePolicy(), s.queueEvents(), s.queueBytes(), s.incarnation());
        SubscriptionSetup.feeds(session, spec).whenComplete((subscriptions, err) -> control.eventLoop().execute(() -> {
            if (err != null) {
                refuse(SubscriptionSetup.failure(err), s);
            } else if (!control.isActive() || !connection.channel().isActive()) {
                subscriptions.forEach(EventFeed::close);
            } else {
                openEventStreams(subscriptions);
            }
        }));
    }

    private void openEventStreams(List<EventFeed> subscriptions) {
        long subscriptionId = subscriptions.get(0).id();
        List<SubscriptionWriter> writers = new ArrayList<>();
        int[] opened = {0};
        boolean[] failed = {false};
        for (EventFeed sub : subscriptions) {
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
                    subscriptions.forEach(EventFeed::close);
                    refuse(FelixError.of(ErrorCode.UNAVAILABLE, "could not open an event stream: "
                            + f.cause().getMessage()), null);
                    return;
                }
                writer.bind((QuicStreamChannel) f.getNow());
                if (++opened[0] == subscriptions.size()) {
                    List<Integer> shardList = null;
                    if (Capabilities.has(negotiated, Capabilities.SHARDS)) {
                        shardList = subscriptions.stream().map(EventFeed::shard).toList();
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

}
