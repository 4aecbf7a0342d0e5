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
import dev.felix.wire.PublishInPlace;
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
 * It owns no frames: a binary batch is read from its frame, valid only during the call, and its payloads are copied out
 * before the shard sees them: for an ephemeral stream (with {@code pooled_payloads}) as one run into a pooled buffer
 * ({@link PooledPayloads}) whose reference passes to the shard, else into one array each. A publish this handler
 * still holds (waiting for its shard's room) gives its pooled buffer back when the stream ends.
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

    /**
     * The events of a binary publish where they arrived: {@code count} events ({@code bytes} of payload) in the
     * {@code length} bytes at {@code at} of the decoded frame payload {@code frame} (relative to its position), each
     * behind its u32 length. Valid during the call only.
     */
    private record InFrame(ByteBuffer frame, int at, int length, int count, long bytes) {
        static InFrame of(ByteBuffer frame, PublishInPlace p) {
            return new InFrame(frame, p.eventsAt(), p.eventsLength(), p.count(), p.payloadBytes());
        }

        /** The payloads copied into one array each. */
        byte[][] arrays() {
            byte[][] out = new byte[count][];
            int i = frame.position() + at;
            for (int k = 0; k < count; k++) {
                int len = frame.getInt(i);
                byte[] p = new byte[len]; // filled at once, before it is stored: the JIT need not zero it first
                frame.get(i + 4, p, 0, len);
                out[k] = p;
                i += 4 + len;
            }
            return out;
        }
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

    /** The stream ended: forget the waiting publish (its request was never taken by the shard), giving back its memory. */
    void abandon() {
        if (waiting instanceof ForShard f) {
            f.request().releasePayloads();
        }
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
            publish(name, p.key(), p.shard(), new byte[][] {p.payload()}, null, ack, false);
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
            publish(name, p.key(), p.shard(), toArray(p.payloads()), null, ack, false);
        }
    }

    /** {@code 0x0001}: fire and forget. */
    void binary(ByteBuffer payload) throws FelixException, WireException {
        PublishInPlace b = WireCodec.decodePublishInPlace(payload, false, names);
        StreamName name = Routing.streamName(session.tenant(), b.tenantId(), b.namespace(), b.stream());
        if (b.count() == 0) {
            publish(name, null, null, new byte[0][], null, null, false);
        } else {
            publish(name, null, null, null, InFrame.of(payload, b), null, false);
        }
    }

    /** {@code 0x0009}: answered with a binary ack. */
    void ackedBinary(ByteBuffer payload) throws WireException {
        AckedPublishPrefix prefix = WireCodec.decodeAckedPublishPrefix(payload); // bad prefix: stream ends
        PublishInPlace batch;
        try {
            batch = WireCodec.decodePublishInPlace(payload, true, names);
        } catch (WireException e) {
            session.write(BinaryPublishAck.error(prefix.requestId(), "malformed publish batch: " + e.getMessage()));
            return;
        }
        Ack ack = new Ack(prefix.requestId(), AckWriter.Reply.ACK);
        StreamName name = nameOrRefuse(batch.tenantId(), batch.namespace(), batch.stream(), ack);
        if (name == null) {
            return;
        }
        if (batch.count() == 0) {
            publish(name, null, null, new byte[0][], null, ack, false);
        } else {
            publish(name, null, null, null, InFrame.of(payload, batch), ack, false);
        }
    }

    /** {@code 0x0029}: answered with a publish result ({@code 0x0030}) carrying its offsets and shard. */
    void routedBinary(ByteBuffer payload) throws WireException {
        AckedPublishPrefix prefix = WireCodec.decodeAckedPublishPrefix(payload); // bad prefix: stream ends
        PublishInPlace batch;
        try {
            batch = WireCodec.decodeRoutedPublishInPlace(payload, names);
        } catch (WireException e) {
            session.acks().refuse(prefix.requestId(), AckWriter.Reply.RESULT,
                    FelixError.of(ErrorCode.BAD_REQUEST, "malformed publish batch: " + e.getMessage()));
            return;
        }
        Ack ack = new Ack(prefix.requestId(), AckWriter.Reply.RESULT);
        if (batch.count() == 0) {
            session.acks().refuse(ack.requestId, ack.encoding, FelixError.of(ErrorCode.BAD_REQUEST,
                    "empty publish batch"));
            return;
        }
        StreamName name = nameOrRefuse(batch.tenantId(), batch.namespace(), batch.stream(), ack);
        if (name != null) {
            publish(name, batch.key(), batch.shard(), null, InFrame.of(payload, batch), ack, false);
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

    /**
     * @param payloads the events as arrays, or null when they are {@code inFrame}
     * @param inFrame  the events where they arrived, or null when they are {@code payloads}
     * @param caughtUp this node has caught up with the cluster's metadata since the publish arrived
     */
    private void publish(StreamName name, String key, Integer shardIndex, byte[][] payloads, InFrame inFrame, Ack ack,
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
                awaitMetadata(new ForMetadata(name, key, shardIndex, payloads != null ? payloads : inFrame.arrays(),
                        ack));
                return;
            }
            refuseOrReport(ack, e.error());
            return;
        }
        PublishRequest request = request(payloads, inFrame, ack);
        if (shard.tryPublish(request)) {
            return;
        }
        if (session.context.config.ingressPolicy() == Settings.IngressPolicy.DROP_NEW) {
            request.releasePayloads();
            if (ack != null) {
                request.listener().failed(FelixError.of(ErrorCode.OVERLOADED, // the ack is no longer owed
                        "shard " + name + "/" + shard.index() + " is overloaded; retry later"));
            } else {
                session.context.metrics.ingressDroppedEvents.add(request.eventCount());
            }
            return;
        }
        pause(shard, request);
    }

    /**
     * The shard's request for events that are arrays already, or still in their frame: those go into a pooled buffer
     * ({@code pooled_payloads}), which a durable shard's log also appends from. The acknowledgement is owed only once
     * the events are copied: a copy that fails (no direct memory) leaves nothing owed.
     */
    private PublishRequest request(byte[][] payloads, InFrame inFrame, Ack ack) {
        if (payloads == null && session.context.config.pooledPayloads()) {
            PooledPayloads pooled = session.context.payloadBlocks.copy(inFrame.frame(), inFrame.at(), inFrame.length(),
                    session.context.metrics.pooledPayloadBytes);
            return PublishRequest.lent(pooled, inFrame.count(), inFrame.bytes(), listener(ack));
        }
        byte[][] arrays = payloads != null ? payloads : inFrame.arrays();
        return PublishRequest.of(arrays, listener(ack));
    }

    private PublishListener listener(Ack ack) {
        return ack == null ? null : session.acks().listener(ack.requestId, ack.encoding);
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
        if (waiting != expected) {
            return;
        }
        if (session.closed()) {
            abandon(); // its memory, unless the stream's end gave it back already
            return;
        }
        if (waiting instanceof ForMetadata m) {
            waiting = null;
            publish(m.name(), m.key(), m.shardIndex(), m.payloads(), null, m.ack(), true); // may pause again
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
