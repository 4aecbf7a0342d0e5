package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamName;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.server.config.Settings;
import dev.felix.wire.AckMode;
import dev.felix.wire.AckedPublishPrefix;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.BinaryRoutedPublishBatch;
import dev.felix.wire.Message;
import dev.felix.wire.NameCache;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Publishes on a client stream — JSON {@code publish} / {@code publish_batch}, binary batches, acknowledged
 * binary batches, routed acknowledged binary batches (the SDK's hot path) — to the shard that leads them here ({@link Routing}), with the stream's ingress policy.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined; shard callbacks come back to it through the event loop.
 * It owns no frames: an acked binary batch is read from a view of the frame that is valid only during the call,
 * and every payload is copied out into the {@code PublishRequest} before the shard sees it.
 *
 * <p><b>Ingress backpressure.</b> When a shard's writer queue is full, under {@code ingress_policy: block}
 * reading this stream stops (frames already decoded wait in the stream's backlog) until the shard has room;
 * QUIC flow control then slows the publisher. Under {@code drop_new} the publish is refused instead (an
 * acknowledged one with {@code overloaded}, an unacknowledged one counted in
 * {@code felix_ingress_dropped}).
 *
 * <p><b>Streams created through another node.</b> A cluster node that does not know a publish's stream yet
 * pauses reading the same way until it has caught up with the cluster's metadata ({@link CatchUpFirst}), then
 * publishes; only a stream still unknown after that is {@code not_found}.
 */
final class PublishHandler {

    /** Who waits for an acknowledgement of a publish: its request id and reply encoding. */
    private record Ack(long requestId, AckWriter.Reply encoding) {
    }

    private static final Ack MISSING_ID = new Ack(-1, AckWriter.Reply.JSON);

    /** What paused reading: a publish waiting for its shard's writer queue, or for the cluster's metadata. */
    private sealed interface Waiting permits ForShard, ForMetadata {
    }

    /** A publish waiting for its shard's writer queue to have room. */
    private record ForShard(Shard shard, PublishRequest request) implements Waiting {
    }

    /** A publish to a stream this cluster node did not know, waiting until it has caught up ({@link CatchUpFirst}). */
    private record ForMetadata(StreamName name, String key, Integer shardIndex, byte[][] payloads, Ack ack)
            implements Waiting {
    }

    private final StreamSession session;
    private final Runnable resumed;
    /** The names of the streams this stream's routed batches went to, decoded once (event loop). */
    private final NameCache names = new NameCache();
    private Waiting waiting;

    /** @param resumed runs (event loop) when a paused publish went through and reading may continue */
    PublishHandler(StreamSession session, Runnable resumed) {
        this.session = session;
        this.resumed = resumed;
    }

    /** Whether reading is paused for a publish waiting for its shard or for the cluster's metadata. */
    boolean waiting() {
        return waiting != null;
    }

    /** The stream ended: forget the waiting publish (its request was never taken by the shard). */
    void abandon() {
        waiting = null;
    }

    void json(Message.Publish p) {
        Ack ack = jsonAck(p.ack(), p.requestId());
        if (ack == MISSING_ID) {
            session.reply(FelixError.of(ErrorCode.BAD_REQUEST, "missing request_id for acked publish"), null);
            return;
        }
        StreamName name = nameOrRefuse(p.tenantId(), p.namespace(), p.stream(), ack);
        if (name != null) {
            publish(name, p.key(), p.shard(), new byte[][] {p.payload()}, ack);
        }
    }

    void json(Message.PublishBatch p) {
        Ack ack = jsonAck(p.ack(), p.requestId());
        if (ack == MISSING_ID) {
            session.reply(FelixError.of(ErrorCode.BAD_REQUEST, "missing request_id for acked publish batch"), null);
            return;
        }
        if (p.payloads().isEmpty()) {
            if (ack != null) {
                session.acks().refuse(ack.requestId, ack.encoding, FelixError.of(ErrorCode.BAD_REQUEST,
                        "empty publish batch"));
            }
            return;
        }
        StreamName name = nameOrRefuse(p.tenantId(), p.namespace(), p.stream(), ack);
        if (name != null) {
            publish(name, p.key(), p.shard(), toArray(p.payloads()), ack);
        }
    }

    void binary(BinaryPublishBatch b) throws FelixException {
        publish(Routing.streamName(session.tenant(), b.tenantId(), b.namespace(), b.stream()), null, null,
                toArray(b.payloads()), null);
    }

    void ackedBinary(ByteBuffer payload) throws WireException {
        AckedPublishPrefix prefix = WireCodec.decodeAckedPublishPrefix(payload); // bad prefix: stream ends
        BinaryPublishBatch batch;
        try {
            batch = WireCodec.decodeAckedPublishBatch(payload).batch();
        } catch (WireException e) {
            session.write(BinaryPublishAck.error(prefix.requestId(), "malformed publish batch: " + e.getMessage()));
            return;
        }
        Ack ack = new Ack(prefix.requestId(), AckWriter.Reply.ACK);
        StreamName name = nameOrRefuse(batch.tenantId(), batch.namespace(), batch.stream(), ack);
        if (name != null) {
            publish(name, null, null, toArray(batch.payloads()), ack);
        }
    }

    /** {@code 0x0029}: answered with a publish result ({@code 0x0030}) carrying its offsets and shard. */
    void routedBinary(ByteBuffer payload) throws WireException {
        AckedPublishPrefix prefix = WireCodec.decodeAckedPublishPrefix(payload); // bad prefix: stream ends
        BinaryRoutedPublishBatch routed;
        try {
            routed = WireCodec.decodeRoutedPublishBatch(payload, names);
        } catch (WireException e) {
            session.acks().refuse(prefix.requestId(), AckWriter.Reply.RESULT,
                    FelixError.of(ErrorCode.BAD_REQUEST, "malformed publish batch: " + e.getMessage()));
            return;
        }
        Ack ack = new Ack(prefix.requestId(), AckWriter.Reply.RESULT);
        BinaryPublishBatch batch = routed.batch();
        if (batch.payloads().isEmpty()) {
            session.acks().refuse(ack.requestId, ack.encoding, FelixError.of(ErrorCode.BAD_REQUEST,
                    "empty publish batch"));
            return;
        }
        StreamName name = nameOrRefuse(batch.tenantId(), batch.namespace(), batch.stream(), ack);
        if (name != null) {
            publish(name, routed.key(), routed.shard(), toArray(batch.payloads()), ack);
        }
    }

    /** Upstream rule: an absent {@code ack} means acknowledged, which then needs a request id. */
    private static Ack jsonAck(AckMode mode, Long requestId) {
        if (mode == AckMode.NONE) {
            return null;
        }
        return requestId == null ? MISSING_ID : new Ack(requestId, AckWriter.Reply.JSON);
    }

    private StreamName nameOrRefuse(String tenantId, String namespace, String stream, Ack ack) {
        try {
            return Routing.streamName(session.tenant(), tenantId, namespace, stream);
        } catch (FelixException e) {
            refuseOrReport(ack, e.error());
            return null;
        }
    }

    private void publish(StreamName name, String key, Integer shardIndex, byte[][] payloads, Ack ack) {
        publish(name, key, shardIndex, payloads, ack, false);
    }

    /** @param caughtUp this node has caught up with the cluster's metadata since the publish arrived */
    private void publish(StreamName name, String key, Integer shardIndex, byte[][] payloads, Ack ack,
            boolean caughtUp) {
        if (ack != null && !session.bidirectional) {
            session.fail(ErrorCode.BAD_REQUEST, "acknowledged publishes need a bidirectional stream");
            return;
        }
        if (session.context.draining()) {
            refuseOrReport(ack, FelixError.of(ErrorCode.UNAVAILABLE, "the broker is shutting down"));
            return;
        }
        Shard shard;
        try {
            shard = Routing.shardToWrite(session.context, name, key, shardIndex);
        } catch (FelixException e) {
            if (!caughtUp && e.error().code() == ErrorCode.NOT_FOUND
                    && session.context.broker.metadata().readsMayLag()) {
                awaitMetadata(new ForMetadata(name, key, shardIndex, payloads, ack));
                return;
            }
            refuseOrReport(ack, e.error());
            return;
        }
        PublishListener listener = ack == null ? null : session.acks().listener(ack.requestId, ack.encoding);
        PublishRequest request = PublishRequest.of(payloads, listener);
        if (shard.tryPublish(request)) {
            return;
        }
        if (session.context.config.ingressPolicy() == Settings.IngressPolicy.DROP_NEW) {
            if (ack != null) {
                listener.failed(FelixError.of(ErrorCode.OVERLOADED, // its listener: the ack is no longer owed
                        "shard " + name + "/" + shard.index() + " is overloaded; retry later"));
            } else {
                session.context.metrics.ingressDroppedEvents.add(payloads.length);
            }
            return;
        }
        pause(shard, request);
    }

    private void refuseOrReport(Ack ack, FelixError error) {
        if (ack != null) {
            session.acks().refuse(ack.requestId, ack.encoding, error);
        } else {
            session.reply(error, null);
        }
    }

    /**
     * Stops reading until this node has caught up with the cluster's metadata, then publishes again (later frames
     * wait in the stream's backlog, so publishes keep their order). A stream still unknown then is
     * {@code not_found}.
     */
    private void awaitMetadata(ForMetadata publish) {
        waiting = publish;
        session.channel.config().setAutoRead(false);
        session.context.broker.metadata().catchUp()
                .whenComplete((v, e) -> session.channel.eventLoop().execute(() -> retry(publish)));
    }

    /** Stops reading until {@code shard} has room for {@code request}. */
    private void pause(Shard shard, PublishRequest request) {
        ForShard w = new ForShard(shard, request);
        waiting = w;
        session.channel.config().setAutoRead(false);
        session.context.metrics.ingressPaused.increment();
        shard.onWritable(() -> session.channel.eventLoop().execute(() -> retry(w)));
    }

    /** What {@code expected} waited for may have come: try it again (a stale wake-up for another wait is ignored). */
    private void retry(Waiting expected) {
        if (waiting != expected || session.closed()) {
            return;
        }
        if (waiting instanceof ForMetadata m) {
            waiting = null;
            publish(m.name(), m.key(), m.shardIndex(), m.payloads(), m.ack(), true); // may pause again, for its shard
        } else {
            ForShard f = (ForShard) waiting;
            if (!f.shard().tryPublish(f.request())) {
                f.shard().onWritable(() -> session.channel.eventLoop().execute(() -> retry(f)));
                return;
            }
            waiting = null;
        }
        if (waiting == null) {
            resumed.run();
        }
    }

    private static byte[][] toArray(List<byte[]> payloads) {
        return payloads.toArray(new byte[0][]);
    }
}
